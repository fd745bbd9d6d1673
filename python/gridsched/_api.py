"""The package's functions: each runs the CLI command of the same name in-process (its own
code, options and checks, through ``gridsched._native``) with its outputs in a temporary
directory, and reads them back as pandas DataFrames — the CLI's columns and units."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Optional, Union

import pandas as pd

from . import _native
from ._native import GridschedError

PathLike = Union[str, "os.PathLike[str]"]

# The columns of `read_swf` (the CLI's `trace convert --to jobs`), in order.
JOB_COLUMNS = [
    "id", "submit", "wait", "run", "procs", "requested_procs", "requested_time",
    "status", "user", "queue", "partition",
]


def _flags(options: dict) -> list:
    """`foo_bar=1` → `--foo-bar 1`; True → a bare flag; False/None → nothing; a list or
    tuple → the flag repeated."""
    argv = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                argv += [flag, _text(v)]
        else:
            argv += [flag, _text(value)]
    return argv


def _text(value: Any) -> str:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


class _Inputs:
    """Inputs given as DataFrames, written to files of a temporary directory; error messages
    that name such a file and line are rewritten to name the frame's row."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.names: list = []  # (path, label, line of row 0)

    def csv(self, value: Any, label: str) -> Any:
        if not isinstance(value, pd.DataFrame):
            return value
        path = self.tmp / f"{label}.csv"
        value.to_csv(path, index=False)
        self.names.append((str(path), f"DataFrame `{label}`", 2))
        return str(path)

    def swf(self, value: Any, label: str) -> Any:
        if not isinstance(value, pd.DataFrame):
            return value
        path = self.tmp / f"{label}.swf"
        header = (value.attrs.get("header") or {}) if hasattr(value, "attrs") else {}
        lines = []
        for key, name in (("max_procs", "MaxProcs"), ("max_nodes", "MaxNodes")):
            if header.get(key) is not None:
                lines.append(f"; {name}: {int(header[key])}")
        missing = [c for c in ("id", "submit", "run", "procs") if c not in value.columns]
        if missing:
            raise GridschedError(
                f"DataFrame `{label}`: no column {', '.join(missing)} (a jobs frame has the "
                f"columns of read_swf: {', '.join(JOB_COLUMNS)})")
        n = len(value)

        def col(name: str) -> Any:
            if name in value.columns:
                return value[name].astype("Int64").fillna(-1).astype("int64").to_numpy()
            return [-1] * n

        cols = [col(c) for c in ("id", "submit", "wait", "run", "procs")]
        cols += [[-1] * n, [-1] * n]  # average CPU time, used memory
        cols += [col(c) for c in ("requested_procs", "requested_time")]
        cols += [[-1] * n]  # requested memory
        cols += [col(c) for c in ("status", "user")]
        cols += [[-1] * n, [-1] * n]  # group, executable
        cols += [col(c) for c in ("queue", "partition")]
        cols += [[-1] * n, [-1] * n]  # preceding job, think time
        with open(path, "w") as f:
            for line in lines:
                f.write(line + "\n")
            for row in zip(*cols):
                f.write(" ".join(str(int(x)) for x in row) + "\n")
        self.names.append((str(path), f"DataFrame `{label}`", len(lines) + 1))
        return str(path)

    def explain(self, message: str) -> str:
        for path, label, first in self.names:
            message = re.sub(
                re.escape(path) + r":(\d+)",
                lambda m: f"{label} row {int(m.group(1)) - first}",
                message,
            )
            message = message.replace(path, label)
        return message


@contextlib.contextmanager
def _workdir(keep: Optional[PathLike] = None) -> Iterator[Path]:
    if keep is not None:
        Path(keep).mkdir(parents=True, exist_ok=True)
        yield Path(keep)
        return
    tmp = Path(tempfile.mkdtemp(prefix="gridsched-"))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def _captured_stdout(into: list) -> Iterator[None]:
    """The command's report (what the CLI prints on standard output) goes into `into[0]`
    instead of the process's standard output, which a notebook does not show anyway."""
    try:
        fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else 1
    except (AttributeError, ValueError, io.UnsupportedOperation):
        fd = 1
    with tempfile.TemporaryFile(mode="w+b") as sink:
        try:
            saved = os.dup(fd)
        except OSError:
            into.append("")
            yield
            return
        try:
            sys.stdout.flush()
        except Exception:
            pass
        os.dup2(sink.fileno(), fd)
        try:
            yield
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            sink.seek(0)
            into.append(sink.read().decode("utf-8", "replace"))


def _run(argv: list, inputs: _Inputs, report: Optional[list] = None, runner=None, *extra,
         capture: bool = True) -> None:
    """Runs a command line, its DataFrame inputs' errors rewritten to name rows. With
    `capture`, what the command prints on standard output goes into `report[0]`."""
    runner = runner or _native.run_command
    sink: list = report if report is not None else []
    try:
        with _captured_stdout(sink) if capture else contextlib.nullcontext():
            runner(["gridsched", *argv], *extra)
    except GridschedError as e:
        raise GridschedError(inputs.explain(str(e))) from None


def _read_csv(path: Path) -> pd.DataFrame:
    if not path.exists() or path.stat().st_size == 0:
        return pd.DataFrame()
    return pd.read_csv(path)


# --- SWF logs and replay -----------------------------------------------------------------


def read_swf(trace: PathLike, *, limit: Optional[int] = None,
             data_dir: Optional[PathLike] = None) -> pd.DataFrame:
    """An SWF log (plain or gzip; a path or a short name of the data directory: KTH, HPC2N,
    CTC, SDSC, LCG, LPC, Curie) as the jobs frame of ``gridsched trace convert``: id, submit,
    wait, run, procs, requested_procs, requested_time, status, user, queue, partition
    (seconds; unknown = NA). ``df.attrs["header"]`` holds the header's fields (max_procs,
    computer, acknowledge, ..., and every ``Key: value`` in ``fields``), ``df.attrs["report"]``
    the reader's counts (records read, kept, skipped and why)."""
    csv, header, report = _native.read_swf(
        _text(trace), None if data_dir is None else _text(data_dir), limit)
    df = pd.read_csv(io.BytesIO(csv), dtype={c: "Int64" for c in JOB_COLUMNS})
    df.attrs["header"] = header
    df.attrs["report"] = report
    return df


def replay(trace: Union[PathLike, pd.DataFrame], policy: Any = "easy", *,
           procs: Optional[int] = None, estimates: str = "requested",
           compression: str = "replay", limit: Optional[int] = None,
           data_dir: Optional[PathLike] = None) -> pd.DataFrame:
    """Replays a log under a queue policy on a cluster of ``procs`` processors (default: the
    header's MaxProcs), as ``gridsched replay``: one row per job in Batsim's jobs schema
    (``evalys.jobset.JobSet.from_df`` reads it). ``policy`` is ``"fcfs"``, ``"easy"``,
    ``"conservative"``, ``"flexible"``, or an object with a ``round(self, r)`` method called
    at every event time with a :class:`gridsched.Round` (see :mod:`gridsched.policies`).
    ``trace`` is a path, a short name (KTH, HPC2N, ...) or a jobs DataFrame (``read_swf``'s
    columns). ``df.attrs["summary"]`` holds the summary (waits, slowdowns, utilization)."""
    with _workdir() as tmp:
        inputs = _Inputs(tmp)
        trace_arg = inputs.swf(trace, "trace")
        builtin = isinstance(policy, str)
        argv = ["replay", "--trace", _text(trace_arg),
                "--policy", policy if builtin else "fcfs",
                "--out", str(tmp / "jobs.csv"), "--summary-json", str(tmp / "summary.json")]
        argv += _flags(dict(procs=procs, estimates=estimates, compression=compression,
                            limit=limit, data_dir=data_dir))
        report: list = []
        if builtin:
            _run(argv, inputs, report, _native.replay_builtin)
        else:
            if not callable(getattr(policy, "round", None)):
                raise TypeError(
                    "policy: a built-in name (fcfs, easy, conservative, flexible) or an object "
                    "with a round(self, r) method")
            # Not captured: what the policy prints (while debugging it) stays visible.
            _run(argv, inputs, report, _native.replay_policy, policy, capture=False)
        df = _read_csv(tmp / "jobs.csv")
        summary = json.loads((tmp / "summary.json").read_text())
    df.attrs["summary"] = summary
    df.attrs["report"] = report[0] if report else ""
    return df


# --- the other commands ------------------------------------------------------------------


def _command(argv: list, outputs: dict, inputs: _Inputs, tmp: Path) -> Any:
    report: list = []
    _run(argv, inputs, report)
    frames = {name: _read_csv(tmp / file) for name, file in outputs.items()}
    for df in frames.values():
        df.attrs["report"] = report[0] if report else ""
    return frames


def grid(*, policy: str, machines: Union[PathLike, pd.DataFrame, None] = None,
         jobs: Union[PathLike, pd.DataFrame, None] = None,
         trace: Union[PathLike, pd.DataFrame, None] = None, **options: Any) -> pd.DataFrame:
    """Klusáček & Rudová's grid scheduling, as ``gridsched grid``: ``policy`` is one of fcfs,
    easy, flexible, eg-edf, tabu, recomp (the CLI's names); ``machines`` a machines CSV (or
    frame), ``jobs`` a jobs CSV (or frame) or ``trace`` an SWF log; every other option of the
    command by its name (``seed=3``, ``tie_break="list-order"``). One row per job."""
    with _workdir() as tmp:
        inputs = _Inputs(tmp)
        argv = ["grid", "--policy", policy, "--out", str(tmp / "out.csv"),
                "--summary-json", str(tmp / "summary.json")]
        argv += _flags(dict(machines=inputs.csv(machines, "machines"),
                            jobs=inputs.csv(jobs, "jobs"), trace=inputs.swf(trace, "trace"),
                            **options))
        df = _command(argv, {"out": "out.csv"}, inputs, tmp)["out"]
        df.attrs["summary"] = json.loads((tmp / "summary.json").read_text())
    return df


def coalloc(trace: Union[PathLike, pd.DataFrame], **options: Any) -> pd.DataFrame:
    """Castillo ch. 5's online co-allocation on an SWF log, as ``gridsched coalloc``: one row
    per job (submit, requested start, start, servers, retries, holds, wait); options by their
    CLI names (``servers=128``, ``ar_fraction=0.2``, ``seed=1``)."""
    with _workdir() as tmp:
        inputs = _Inputs(tmp)
        argv = ["coalloc", "--trace", _text(inputs.swf(trace, "trace")),
                "--out", str(tmp / "out.csv")] + _flags(options)
        return _command(argv, {"out": "out.csv"}, inputs, tmp)["out"]


def reservations(requests: Union[PathLike, pd.DataFrame], *, hetero: bool = False,
                 **options: Any) -> pd.DataFrame:
    """Castillo ch. 3 (``hetero=False``: ``gridsched schedule reservation``) or ch. 4
    (``hetero=True``: ``gridsched schedule hetero``) online advance reservations of a request
    CSV (id,arrival,ready,length,deadline) or frame; options by their CLI names
    (``servers=20``, ``strategy="min-lip"``). One row per request."""
    with _workdir() as tmp:
        inputs = _Inputs(tmp)
        argv = ["schedule", "hetero" if hetero else "reservation",
                "--requests", _text(inputs.csv(requests, "requests")),
                "--out", str(tmp / "out.csv")] + _flags(options)
        return _command(argv, {"out": "out.csv"}, inputs, tmp)["out"]


def map(etc: Union[PathLike, pd.DataFrame], heuristic: str, **options: Any) -> pd.DataFrame:
    """Maps the independent tasks of an ETC matrix (a Braun file, a CSV, or a tasks x
    machines frame) with a heuristic, as ``gridsched map``: one row per task (task, machine,
    start, end, order, ...); ``df.attrs["results"]`` holds makespan, flowtime, utilization
    and load balance (the command's ``--json``)."""
    with _workdir() as tmp:
        inputs = _Inputs(tmp)
        if isinstance(etc, pd.DataFrame):
            path = tmp / "etc.csv"
            etc.to_csv(path, index=False, header=False)
            inputs.names.append((str(path), "DataFrame `etc`", 1))
            etc = str(path)
        argv = ["map", "--etc", _text(etc), "--heuristic", heuristic,
                "--schedule", str(tmp / "schedule.csv"), "--json"] + _flags(options)
        df = _command(argv, {"out": "schedule.csv"}, inputs, tmp)["out"]
        try:
            df.attrs["results"] = json.loads(df.attrs.get("report") or "{}")
        except ValueError:
            df.attrs["results"] = {}
    return df


def provision(workflow: PathLike, **options: Any) -> pd.DataFrame:
    """Provisions a workflow (DAX, WfCommons, ``synthetic`` or ``cybershake``) on the slots
    of one or more sites, as ``gridsched provision``: one row per task of the plans and the
    best-effort run; options by their CLI names (``trace="SDSC"``, ``at=..``, ``alpha=0.5``,
    ``algorithm="greedy"``). ``df.attrs["slots"]`` is the advertised slots' frame."""
    with _workdir() as tmp:
        inputs = _Inputs(tmp)
        trace = options.pop("trace", None)
        if trace is not None:
            options["trace"] = inputs.swf(trace, "trace")
        argv = ["provision", "--workflow", _text(workflow), "--out", str(tmp / "out.csv"),
                "--slots-out", str(tmp / "slots.csv")] + _flags(options)
        frames = _command(argv, {"out": "out.csv", "slots": "slots.csv"}, inputs, tmp)
        df = frames["out"]
        df.attrs["slots"] = frames["slots"]
    return df


def price(trace: Union[PathLike, pd.DataFrame], **options: Any) -> pd.DataFrame:
    """The adaptive price of a reservation at a moment of a site's log (Singh ch. 5), as
    ``gridsched price``: one row per candidate start with the delay it causes the queue;
    options by their CLI names (``at=..``, ``procs=..``, ``duration=..``, ``alpha=..``)."""
    with _workdir() as tmp:
        inputs = _Inputs(tmp)
        argv = ["price", "--trace", _text(inputs.swf(trace, "trace")),
                "--out", str(tmp / "out.csv")] + _flags(options)
        return _command(argv, {"out": "out.csv"}, inputs, tmp)["out"]


def hierarchy(system: str = "h1", **options: Any) -> pd.DataFrame:
    """Al-Zoubi's hierarchical (h1, h4, h16) or P2P grid scheduling on the thesis's grid, as
    ``gridsched hierarchy``: one row per job; options by their CLI names (``jobs=500``,
    ``size="100GB"``, ``experiment=2``, ``seed=1``)."""
    with _workdir() as tmp:
        inputs = _Inputs(tmp)
        argv = ["hierarchy", "--system", system, "--out", str(tmp / "out.csv")] + _flags(options)
        return _command(argv, {"out": "out.csv"}, inputs, tmp)["out"]


# --- the experiments ---------------------------------------------------------------------


def experiments() -> pd.DataFrame:
    """The catalogue of ``gridsched list``: one row per experiment (id, document, paper,
    kind, title, sweep, metrics, number of claims, entry file)."""
    return pd.DataFrame(_native.experiments())


class Reproduction(NamedTuple):
    """What ``reproduce`` returns."""
    id: str
    results: pd.DataFrame
    summary: pd.DataFrame
    claims: pd.DataFrame
    figure_svg: Optional[str]
    files: list


def reproduce(id: str, scale: str = "quick", *, root: Optional[PathLike] = None,
              reps: Optional[int] = None, jobs: Optional[int] = None,
              threads: Optional[int] = None, data_dir: Optional[PathLike] = None,
              allow_dirty: bool = False) -> Reproduction:
    """Regenerates experiment ``id`` (``castillo-fig-3.4``, or bare ``fig-3.4``) as
    ``gridsched reproduce`` does: ``results`` (every run's values: the data CSV),
    ``summary`` (means and 95% confidence intervals), ``claims`` (each claim's verdict,
    measured numbers and, for a FAIL, the investigated reason) and the figure's SVG. Files are
    written to a temporary directory and removed, unless ``root`` names a project directory
    to keep them in (``root`` = your checkout updates its data/ and figures/; at paper scale
    a checkout with uncommitted changes is refused unless ``allow_dirty``, as by the CLI). The
    data directory is set once per process (the first ``data_dir`` given wins)."""
    with _workdir(root) as tmp:
        full_id, files, claims = _native.reproduce(
            id, str(tmp), scale, reps, jobs, threads,
            None if data_dir is None else _text(data_dir), root is None or allow_dirty)
        by_suffix = {}
        for f in files:
            for suffix in (".summary.csv", ".timing.csv", ".meta.json", ".svg", ".table.md", ".csv"):
                if f.endswith(suffix):
                    by_suffix.setdefault(suffix, f)
                    break
        results = _read_csv(Path(by_suffix[".csv"])) if ".csv" in by_suffix else pd.DataFrame()
        summary = (_read_csv(Path(by_suffix[".summary.csv"]))
                   if ".summary.csv" in by_suffix else pd.DataFrame())
        svg = Path(by_suffix[".svg"]).read_text() if ".svg" in by_suffix else None
        kept = list(files) if root is not None else []
    return Reproduction(full_id, results, summary, pd.DataFrame(
        claims, columns=["claim", "verdict", "kind", "soft", "summary", "reason", "quote"]),
        svg, kept)
