"""Ctrl-C: a long run releases the GIL and stops at SIGINT with KeyboardInterrupt."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import HPC2N, need

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
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, policy], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=os.environ.copy())
    assert proc.stdout.readline().strip() == "start"
    time.sleep(0.4)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert out.startswith("interrupted"), out
    assert int(out.split()[-1]) > 5  # the other thread ran during the replay
