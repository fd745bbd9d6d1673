"""read_swf and replay: the CLI's columns, the evalys round trip, determinism, bad input."""

import gzip

import pandas as pd
import pytest

import gridsched
from conftest import DATA, KTH, need

BATSIM = [
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
    "consumed_energy", "metadata",
]


def test_read_swf_matches_the_file():
    need(KTH)
    df = gridsched.read_swf("KTH")
    assert list(df.columns) == gridsched.JOB_COLUMNS
    # An independent reading of the file: every data line, fields 1, 2 and 4.
    rows = []
    with gzip.open(DATA / KTH, "rt") as f:
        for line in f:
            if line.strip() and not line.lstrip().startswith(";"):
                rows.append([int(x) for x in line.split()])
    report = df.attrs["report"]
    assert report["records"] == len(rows)
    assert report["kept"] == len(df)
    kept = [r for r in rows if r[3] > 0 and (r[4] > 0 or r[7] > 0)]
    assert len(df) == len(kept)
    assert df["id"].tolist() == [r[0] for r in kept]
    assert df["run"].tolist() == [r[3] for r in kept]
    header = df.attrs["header"]
    assert header["max_procs"] == 100
    assert "Acknowledge" in header["fields"] or header["acknowledge"]


def test_read_swf_limit_and_bad_input(tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 8\n1 0 0 10 2 -1 -1 2 20 -1 1 1 -1 -1 1 -1 -1 -1\n2 5 x 10\n")
    with pytest.raises(gridsched.GridschedError, match=r"bad\.swf:3"):
        gridsched.read_swf(bad)
    with pytest.raises(ValueError, match="no such file"):
        gridsched.read_swf(tmp_path / "missing.swf")
    # The CLI's door for logs: a prefix of no jobs is refused, as by every command.
    with pytest.raises(gridsched.GridschedError, match="--limit must be positive"):
        gridsched.read_swf(bad, limit=0)


def test_replay_is_the_batsim_schema_and_evalys_reads_it(tmp_path):
    need(KTH)
    evalys_jobset = pytest.importorskip("evalys.jobset")
    df = gridsched.replay("KTH", "easy")
    assert BATSIM == [c for c in df.columns if c in BATSIM]
    assert len(df) == len(gridsched.read_swf("KTH"))
    assert (df["waiting_time"] == df["starting_time"] - df["submission_time"]).all()
    assert df.attrs["summary"]["procs"] == 100
    # evalys reads the file as written (its own converters parse allocated_resources)...
    path = tmp_path / "jobs.csv"
    df.to_csv(path, index=False)
    js = evalys_jobset.JobSet.from_csv(str(path))
    assert js.MaxProcs == 100 and len(js.df) == len(df)
    assert js.utilisation["load"].max() <= 100
    assert js.df["proc_alloc"].tolist() == df["requested_number_of_resources"].tolist()
    # ... and the frame itself, with the same converters (evalys 4 has no from_df).
    conv = evalys_jobset.JobSet._JobSet__converters["allocated_resources"]
    frame = df.assign(allocated_resources=df["allocated_resources"].map(conv))
    js2 = evalys_jobset.JobSet(frame)
    pd.testing.assert_frame_equal(js2.utilisation, js.utilisation)


def test_replay_of_a_frame_equals_the_replay_of_its_file():
    need(KTH)
    jobs = gridsched.read_swf("KTH", limit=3000)
    from_file = gridsched.replay("KTH", "conservative", limit=3000)
    from_frame = gridsched.replay(jobs, "conservative")  # MaxProcs from df.attrs["header"]
    cols = ["job_id", "starting_time", "finish_time", "allocated_resources"]
    pd.testing.assert_frame_equal(from_file[cols], from_frame[cols])


def test_replay_is_deterministic():
    need(KTH)
    a = gridsched.replay("KTH", "flexible", limit=5000, estimates="actual")
    b = gridsched.replay("KTH", "flexible", limit=5000, estimates="actual")
    pd.testing.assert_frame_equal(a, b)


def test_replay_bad_input_names_the_row_or_option():
    frame = pd.DataFrame({"id": [1, 2], "submit": [0, 5], "run": [10, 0], "procs": [2, 2]})
    frame.attrs["header"] = {"max_procs": 4}
    # A zero run time is skipped with a count, not an error: job 2 is not replayed.
    assert len(gridsched.replay(frame, "fcfs")) == 1
    frame.loc[1, "run"] = 10
    frame.loc[1, "procs"] = 9
    out = gridsched.replay(frame, "fcfs")
    assert out.attrs["summary"]["jobs_dropped_too_wide"] == 1
    frame.loc[1, "submit"] = 10**13
    with pytest.raises(gridsched.GridschedError, match=r"DataFrame `trace` row 1"):
        gridsched.replay(frame, "fcfs")
    with pytest.raises(gridsched.GridschedError, match="procs"):
        gridsched.replay(frame.iloc[:1], "fcfs", procs=0)
    with pytest.raises(gridsched.GridschedError, match="invalid value 'sjf'"):
        gridsched.replay(frame.iloc[:1], "sjf")
    with pytest.raises(gridsched.GridschedError, match="no column run"):
        gridsched.replay(frame.drop(columns=["run"]), "fcfs")
    with pytest.raises(TypeError):
        gridsched.replay(frame, object())
