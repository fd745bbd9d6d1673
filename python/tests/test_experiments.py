"""experiments() and reproduce(): the catalogue, results with claims, nothing written to the
checkout unless asked, same numbers every time."""

import os

import pandas as pd
import pytest

import gridsched
from conftest import CHECKOUT


def test_catalogue():
    e = gridsched.experiments()
    assert e["id"].is_unique
    assert len(e) > 100
    assert all((CHECKOUT / "experiments" / s).is_file() for s in e["source"])
    assert all(i.startswith(p + "-") for i, p in zip(e["id"], e["paper"]))
    assert "castillo-fig-3.4" in set(e["id"])


def _snapshot(root):
    return {p: p.stat().st_mtime_ns for d in ("data", "figures") for p in (root / d).rglob("*")}


def test_reproduce_returns_frames_and_leaves_the_checkout_alone(tmp_path):
    before = _snapshot(CHECKOUT)
    cwd = os.getcwd()
    os.chdir(CHECKOUT)  # even from inside the checkout
    try:
        r = gridsched.reproduce("fig-3.4")
    finally:
        os.chdir(cwd)
    assert _snapshot(CHECKOUT) == before
    assert r.id == "castillo-fig-3.4" and r.files == []
    assert {"metric", "value", "run"} <= set(r.results.columns)
    assert {"mean", "ci95_half_width"} <= set(r.summary.columns)
    assert set(r.claims["verdict"]) <= {"PASS", "TIE", "FAIL", "SOFT-FAIL", "SKIP"}
    assert len(r.claims) == gridsched.experiments().set_index("id").loc[r.id, "claims"]
    assert r.figure_svg.startswith("<svg") or "<svg" in r.figure_svg[:200]
    # The committed quick-scale numbers are the ones a rerun gives.
    committed = pd.read_csv(CHECKOUT / "data" / "castillo" / "fig-3.4.quick.csv")
    pd.testing.assert_frame_equal(r.results, committed)
    kept = gridsched.reproduce("fig-3.4", root=tmp_path, reps=2)
    assert kept.files and all(os.path.exists(f) for f in kept.files)
    assert kept.results["run"].max() == 1


def test_reproduce_bad_id():
    with pytest.raises(gridsched.GridschedError, match="fig-99"):
        gridsched.reproduce("fig-99")
    with pytest.raises(gridsched.GridschedError, match="scale"):
        gridsched.reproduce("fig-3.4", scale="huge")
