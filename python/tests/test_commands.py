"""The other commands: each returns its CLI CSV as a frame; same seed, same frame; bad
input raises GridschedError naming the file and line (or the frame's row)."""

import pandas as pd
import pytest

import gridsched
from conftest import BRAUN, DATA, KTH, SDSC, need


def _grid_input(seed=5):
    """The paper's synthetic grid, written by the CLI's own `grid generate`."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        gridsched._native.run_command(
            ["gridsched", "grid", "generate", "--seed", str(seed), "--tau", "1", "--out-dir", d])
        return (pd.read_csv(Path(d) / "machines.csv"), pd.read_csv(Path(d) / "jobs.csv"))


def test_grid_from_frames():
    machines, jobs = _grid_input()
    jobs = jobs.head(400)
    df = gridsched.grid(policy="eg-edf", machines=machines, jobs=jobs)
    assert len(df) == 400
    assert {"id", "machine", "start", "end", "wait"} <= set(df.columns)
    assert df.attrs["summary"]["jobs"] == 400
    pd.testing.assert_frame_equal(df, gridsched.grid(policy="eg-edf", machines=machines, jobs=jobs))
    easy = gridsched.grid(policy="easy", machines=machines, jobs=jobs)
    assert not easy["start"].equals(df["start"])


def test_grid_bad_row_is_named():
    machines, jobs = _grid_input()
    machines.loc[2, "cpus"] = -3
    with pytest.raises(gridsched.GridschedError, match=r"DataFrame `machines` row 2"):
        gridsched.grid(policy="fcfs", machines=machines, jobs=jobs.head(10))


def test_coalloc_same_seed_same_frame():
    need(KTH)
    a = gridsched.coalloc("KTH", limit=2000, servers=100, ar_fraction=0.3, seed=7)
    b = gridsched.coalloc("KTH", limit=2000, servers=100, ar_fraction=0.3, seed=7)
    c = gridsched.coalloc("KTH", limit=2000, servers=100, ar_fraction=0.3, seed=8)
    assert len(a) == 2000 and {"start", "servers", "retries", "wait"} <= set(a.columns)
    pd.testing.assert_frame_equal(a, b)
    assert not a["requested_start"].equals(c["requested_start"])


def test_reservations_ch3_and_ch4():
    req = pd.DataFrame(dict(id=[1, 2, 3], arrival=[0, 0, 1], ready=[0, 1, 2],
                            length=[2, 3, 1], deadline=[5, 9, 4]))
    df = gridsched.reservations(req, servers=2, strategy="first-fit")
    assert df["accepted"].all() and len(df) == 3
    assert (df["end"] - df["start"]).tolist() == [2, 3, 1]
    bad = req.copy()
    bad.loc[1, "deadline"] = 0
    with pytest.raises(gridsched.GridschedError, match=r"DataFrame `requests` row 1"):
        gridsched.reservations(bad, servers=2, strategy="first-fit")


def test_map_braun():
    need(BRAUN)
    df = gridsched.map(DATA / BRAUN, "min-min")
    assert len(df) == 512 and df["machine"].between(0, 15).all()
    assert df.attrs["results"]["makespan"] == pytest.approx(df["end"].max())
    etc = pd.DataFrame([[1.0, 2.0], [3.0, 1.0], [2.0, 2.0]])
    small = gridsched.map(etc, "mct")
    assert len(small) == 3


def test_price_and_provision():
    need(SDSC)
    p = gridsched.price("SDSC", limit=3000, at="5d", procs=16, duration=3600)
    assert len(p) > 0
    v = gridsched.provision("synthetic", trace="SDSC", limit=3000, at="5d", tasks=20,
                            generations=2, population=10, seed=1)
    w = gridsched.provision("synthetic", trace="SDSC", limit=3000, at="5d", tasks=20,
                            generations=2, population=10, seed=1)
    assert len(v) > 0
    pd.testing.assert_frame_equal(v, w)
    assert len(v.attrs["slots"]) > 0


def test_hierarchy_same_seed_same_frame():
    a = gridsched.hierarchy("h1", jobs=60, size="1GB", seed=3)
    b = gridsched.hierarchy("h1", jobs=60, size="1GB", seed=3)
    assert len(a) == 60
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(gridsched.GridschedError, match="size"):
        gridsched.hierarchy("h1", jobs=60, size="lots")
