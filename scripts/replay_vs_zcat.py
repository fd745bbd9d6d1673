#!/usr/bin/env python3
"""`gridsched replay` end to end against `zcat` of the same log, side by side (issue 32, item 4).

    scripts/replay_vs_zcat.py [--runs 9] [--policy easy] [--out DIR] [--pin CPU]
                              --bin new=target/release/gridsched [--bin old=/tmp/old-gridsched]
                              TRACE [TRACE ...]

For every trace the commands run in turn, round after round (zcat, then each binary, then zcat
again, ...), so that a change in the machine's load hits all of them alike. Each command's wall
time and CPU time (user + system of the child and its threads, from wait4's rusage, microsecond
resolution) are recorded; the table gives the best and the median of both, and each binary's
ratio to zcat (best wall / best wall, median / median, and the same for CPU). The jobs CSV goes
to DIR/<name>.<trace>.csv (a file, as a user would write it: temporary file, fsync, rename) and
the outputs of the binaries are compared byte for byte at the end.
"""

import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import time


def run(cmd, stdout, pin):
    if pin is not None:
        cmd = ["taskset", "-c", str(pin)] + cmd
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed with {p.returncode}")
    return wall, ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--policy", default="easy")
    ap.add_argument("--out", default="/tmp/replay_vs_zcat")
    ap.add_argument("--pin", default=None, help="taskset -c CPU for every command")
    ap.add_argument("--bin", action="append", required=True, help="NAME=PATH")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    bins = [b.split("=", 1) for b in a.bin]
    devnull = open(os.devnull, "wb")
    print(f"# {a.runs} rounds, policy {a.policy}, load average {os.getloadavg()[0]:.1f}")
    print("| trace | command | best wall | median wall | best CPU | median CPU | wall / zcat (best, median) | CPU / zcat (best, median) |")
    print("|---|---|---|---|---|---|---|---|")
    for trace in a.traces:
        name = os.path.basename(trace).split("-")[0]
        cmds = [("zcat", ["zcat", trace])]
        for b, path in bins:
            out = os.path.join(a.out, f"{b}.{name}.{a.policy}.csv")
            cmds.append((b, [path, "replay", "--policy", a.policy, "--trace", trace, "--out", out]))
        times = {c: [] for c, _ in cmds}
        for _ in range(a.runs):
            for c, cmd in cmds:
                times[c].append(run(cmd, devnull, a.pin))
        z = times["zcat"]
        zw, zc = [w for w, _ in z], [c for _, c in z]
        for c, _ in cmds:
            w = [x for x, _ in times[c]]
            u = [x for _, x in times[c]]
            row = f"| {name} | {c} | {min(w):.3f} s | {statistics.median(w):.3f} s | {min(u):.3f} s | {statistics.median(u):.3f} s |"
            if c == "zcat":
                row += " 1 | 1 |"
            else:
                row += (f" {min(w) / min(zw):.2f}, {statistics.median(w) / statistics.median(zw):.2f} |"
                        f" {min(u) / min(zc):.2f}, {statistics.median(u) / statistics.median(zc):.2f} |")
            print(row, flush=True)
        outs = [os.path.join(a.out, f"{b}.{name}.{a.policy}.csv") for b, _ in bins]
        for o in outs[1:]:
            if not filecmp.cmp(outs[0], o, shallow=False):
                sys.exit(f"{outs[0]} and {o} differ")
    print(f"# load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
