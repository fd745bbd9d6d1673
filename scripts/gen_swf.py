#!/usr/bin/env python3
"""Writes a synthetic Standard Workload Format log of N jobs, for measuring how the commands
that read logs (`replay`, `coalloc`, `trace convert`) grow with the log (docs/benchmarks.md,
"Huge logs in bounded memory"). Standard library only; the same arguments give the same bytes.

    python3 scripts/gen_swf.py --jobs 3000000 --procs 512 --out /tmp/synthetic-3m.swf

The jobs look like an archive log's, so that the schedulers do the work they do on real ones:
Poisson arrivals whose rate is chosen for an offered load `--load` of the machine (a bounded
queue: an overloaded machine would make every backfilling scan grow with the log, which is not
what is being measured), sizes mostly powers of two up to half the machine (a third serial,
one in a hundred the whole machine), log-uniform run times from 10 s to 36 h, and requested times
that are over-estimates rounded up to the quarter hour (a tenth of the jobs run into their
limit and are killed at it, as in the archive's logs). Every record is one the loader keeps,
in submit order, with distinct job numbers. Do not write it into the repository: it is
generated data (a few hundred MB at millions of jobs).
"""

import argparse
import math
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, required=True, help="number of jobs")
    ap.add_argument("--procs", type=int, default=512, help="MaxProcs of the machine")
    ap.add_argument("--load", type=float, default=0.75, help="offered load (0-1)")
    ap.add_argument("--seed", type=int, default=35, help="random seed")
    ap.add_argument("--out", default="-", help="output file (default: standard output)")
    a = ap.parse_args()
    if a.jobs < 1 or a.procs < 1 or not 0 < a.load <= 1:
        sys.exit("need --jobs >= 1, --procs >= 1, 0 < --load <= 1")
    rng = random.Random(a.seed)

    max_exp = int(math.log2(a.procs))

    def size(r):
        u = r.random()
        if u < 0.30:
            return 1
        if u < 0.31:
            return a.procs
        if u < 0.85:
            return 2 ** r.randint(1, max(1, max_exp - 1))
        return r.randint(1, max(1, a.procs // 4))

    lo, hi = math.log(10), math.log(36 * 3600)

    def run_time(r):
        return int(math.exp(r.uniform(lo, hi)))

    # Mean work per job (processor-seconds), estimated from the laws themselves on a sample of
    # their own stream, so that the arrival rate gives the requested load.
    probe = random.Random(a.seed + 1)
    samples = 20000
    work = sum(size(probe) * run_time(probe) for _ in range(samples))
    mean_work = work / samples
    mean_gap = mean_work / (a.load * a.procs)

    out = sys.stdout if a.out == "-" else open(a.out, "w", buffering=1 << 20)
    w = out.write
    w("; Version: 2.2\n")
    w("; Computer: synthetic (scripts/gen_swf.py)\n")
    w(f"; Note: {a.jobs} jobs, offered load {a.load}, seed {a.seed}\n")
    w(f"; MaxJobs: {a.jobs}\n")
    w(f"; MaxRecords: {a.jobs}\n")
    w("; UnixStartTime: 1700000000\n")
    w(f"; MaxNodes: {a.procs}\n")
    w(f"; MaxProcs: {a.procs}\n")
    w("; MaxQueues: 2\n; Queue: 1 batch\n; Queue: 2 test\n")
    w("; MaxPartitions: 1\n; Partition: 1 all\n;\n")
    t = 0.0
    lines = []
    for job in range(1, a.jobs + 1):
        t += rng.expovariate(1.0 / mean_gap)
        n = size(rng)
        run = run_time(rng)
        req = math.ceil(run * rng.uniform(1.0, 4.0) / 900) * 900
        status = 1
        if rng.random() < 0.1:
            # Killed at its limit: the log records the limit as the run time.
            req = max(900, math.floor(run / 900) * 900)
            run = req
            status = 0
        wait = rng.randint(0, 3600)
        user = rng.randint(1, 400)
        queue = 1 if n > 1 or rng.random() < 0.5 else 2
        lines.append(
            f"{job} {int(t)} {wait} {run} {n} -1 -1 {n} {req} -1 {status} {user} "
            f"{user % 37 + 1} -1 {queue} 1 -1 -1\n"
        )
        if len(lines) == 10000:
            w("".join(lines))
            lines.clear()
    w("".join(lines))
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
