"""Ctrl-C: a long run releases the GIL and stops at SIGINT with KeyboardInterrupt."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import HPC2N, need


def default_sigint():
    # A shell that starts a command in the background (`.ci/run &`, nohup, a CI runner's
    # detached job) starts it with SIGINT ignored, the children inherit that, and an
    # interpreter started with SIGINT ignored installs no KeyboardInterrupt handler: the
    # interrupt would be dropped and these tests would measure the parent shell, not us.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted(args, after):
    """Runs `python args`, sends SIGINT `after` seconds past its "start" line, and returns
    what it printed next. A child that outlives the test (the interrupt lost, a timeout) is
    killed: left running, a paper-scale reproduction took a core for minutes after the test
    had failed."""
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=os.environ.copy(),
                            preexec_fn=default_sigint)
    try:
        assert proc.stdout.readline().strip() == "start"
        time.sleep(after)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        return out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


SCRIPT = textwrap.dedent("""
    import sys, threading, time
    import gridsched
    from gridsched.policies import Easy
    policy = Easy() if sys.argv[1] == "python" else "conservative"
    ticks = []
    t = threading.Thread(target=lambda: [ticks.append(1) or time.sleep(0.01) for _ in range(50)])
    t.start()  # runs while the replay holds no GIL (built-in) or between rounds (Python)
    print("start", flush=True)
    start = time.perf_counter()
    try:
        gridsched.replay("HPC2N", policy, estimates="requested")
        print("finished", flush=True)
    except KeyboardInterrupt:
        print(f"interrupted {time.perf_counter() - start:.2f} ticks {len(ticks)}", flush=True)
""")


@pytest.mark.parametrize("policy", ["builtin", "python"])
def test_ctrl_c_interrupts_a_replay(policy):
    need(HPC2N)
    out = interrupted(["-c", SCRIPT, policy], 0.4)
    assert out.startswith("interrupted"), out
    assert int(out.split()[-1]) > 5  # the other thread ran during the replay


# Every other command: Ctrl-C cancels the run itself (gridsched_sim::cancel), so once
# KeyboardInterrupt is raised nothing keeps working in the background, and the next call runs.
OTHER = textwrap.dedent("""
    import resource, time
    import gridsched
    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime
    print("start", flush=True)
    try:
        # Minutes of work at paper scale (a million requests per run).
        gridsched.reproduce("castillo-fig-3.4", scale="paper", threads=1)
        print("finished", flush=True)
    except KeyboardInterrupt:
        before = cpu()
        time.sleep(1.0)
        idle = cpu() - before
        again = gridsched.reproduce("castillo-fig-3.4", scale="quick", reps=1)
        print(f"interrupted rerun-rows {len(again.results)} cpu-after {idle:.3f}", flush=True)
""")


def test_ctrl_c_cancels_a_reproduction_instead_of_leaving_it_running():
    out = interrupted(["-c", OTHER], 1.0)
    assert out.startswith("interrupted"), out
    assert int(out.split()[2]) > 0, out  # the cancellation was lifted for the next call
    # A run left going in the background would burn about a second of CPU in that second.
    assert float(out.split()[-1]) < 0.3, out
