"""Policies written in Python drive the batch simulator through its Round API."""

import time

import pandas as pd
import pytest

import gridsched
from gridsched.policies import Easy, Fcfs, ShortestFirst
from conftest import HPC2N, KTH, need

COLS = ["job_id", "starting_time", "finish_time", "allocated_resources", "final_state"]


def _same_schedule(trace, policy, builtin, **kw):
    ours = gridsched.replay(trace, policy, **kw)
    theirs = gridsched.replay(trace, builtin, **kw)
    assert ours.attrs["summary"]["policy"] == "external"
    pd.testing.assert_frame_equal(ours[COLS], theirs[COLS])
    return ours


@pytest.mark.parametrize("estimates", ["requested", "actual"])
def test_python_easy_equals_builtin_easy_on_kth(estimates):
    need(KTH)
    _same_schedule("KTH", Easy(), "easy", estimates=estimates)


def test_python_fcfs_equals_builtin_fcfs_on_kth():
    need(KTH)
    _same_schedule("KTH", Fcfs(), "fcfs")


def test_python_easy_equals_builtin_easy_on_hpc2n():
    need(HPC2N)
    start = time.perf_counter()
    ours = gridsched.replay("HPC2N", Easy())
    python_s = time.perf_counter() - start
    start = time.perf_counter()
    theirs = gridsched.replay("HPC2N", "easy")
    builtin_s = time.perf_counter() - start
    assert len(ours) == 202871
    pd.testing.assert_frame_equal(ours[COLS], theirs[COLS])
    print(f"HPC2N: Python EASY {python_s:.2f} s, built-in EASY {builtin_s:.2f} s (end to end)")


def test_a_policy_of_ones_own_is_audited_and_differs():
    need(KTH)
    sjf = gridsched.replay("KTH", ShortestFirst(), limit=5000)
    easy = gridsched.replay("KTH", "easy", limit=5000)
    assert len(sjf) == len(easy)
    assert not sjf["starting_time"].equals(easy["starting_time"])
    assert (sjf["starting_time"] >= sjf["submission_time"]).all()


def _frame():
    df = pd.DataFrame({"id": [1, 2, 3], "submit": [0, 0, 1], "run": [10, 5, 5],
                       "procs": [4, 2, 2], "requested_time": [10, 5, 5]})
    df.attrs["header"] = {"max_procs": 4}
    return df


def test_round_api_sees_the_state_and_refuses_bad_starts():
    seen = []

    class Probe:
        def __init__(self):
            self.q = []

        def round(self, r):
            self.q += r.arrived()
            seen.append((r.now, r.free_now(), list(r.waiting()), r.profile()))
            if r.now == 0:
                assert r.job(self.q[0])["procs"] == 4
                r.start(self.q.pop(0))  # takes all 4 processors
                with pytest.raises(gridsched.GridschedError, match="does not fit"):
                    r.start(self.q[0])
                with pytest.raises(gridsched.GridschedError, match="no job index"):
                    r.procs(99)
            while self.q and r.fits_now(self.q[0]):
                r.start(self.q.pop(0))

    kept = []

    class Keeper:
        def round(self, r):
            kept.append(r)
            for j in r.arrived():
                r.start(j) if r.fits_now(j) else None
            for j in r.waiting():
                if r.fits_now(j):
                    r.start(j)

    out = gridsched.replay(_frame(), Probe())
    assert out["starting_time"].tolist() == [0, 10, 10]
    assert seen[0][0] == 0 and seen[0][1] == 4
    assert seen[1][0] == 1 and seen[1][3] == [(1, 0), (10, 4)]
    gridsched.replay(_frame(), Keeper())
    with pytest.raises(RuntimeError, match="no round is open"):
        kept[0].now


def test_a_policy_exception_propagates_and_a_stuck_policy_is_an_error():
    class Boom:
        def round(self, r):
            raise ZeroDivisionError("policy bug")

    with pytest.raises(ZeroDivisionError, match="policy bug"):
        gridsched.replay(_frame(), Boom())

    class Idle:
        def round(self, r):
            pass

    with pytest.raises(gridsched.GridschedError, match="left 3 jobs waiting"):
        gridsched.replay(_frame(), Idle())
