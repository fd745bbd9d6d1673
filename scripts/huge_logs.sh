#!/usr/bin/env bash
# Peak memory and CPU of the commands that read a whole log (`replay`, `coalloc`,
# `trace convert`) on synthetic logs of growing size (docs/benchmarks.md, "Huge logs in bounded
# memory"): makes each log with scripts/gen_swf.py in a scratch directory (never in the
# checkout), runs every command under GNU time, and prints one Markdown row per command and size
# with the peak RSS, the bytes per job and the CPU time (user + system).
#
#   scripts/huge_logs.sh [BIN] [SIZES...]    # default: target/release/gridsched 300000 1000000 3000000
#
# Environment: WORK (a scratch directory to use, default a new one under /tmp), KEEP=1 keeps the
# logs and outputs there. The logs take about 70 bytes per job (210 MB at 3 M jobs).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/release/gridsched}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(300000 1000000 3000000)
[ -x "$bin" ] || { echo "no binary $bin (cargo build --release -p gridsched)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time; Debian's package time)" >&2; exit 1; }
if [ -n "${WORK:-}" ]; then
    work="$WORK"
    mkdir -p "$work"
    # Only what this script wrote is removed from a directory it was given.
    clean() { rm -f "$work"/synthetic-*.swf "$work"/{replay,coalloc,convert}.csv "$work"/{time,stdout,stderr}.txt; }
else
    work="$(mktemp -d /tmp/gridsched-huge.XXXXXX)"
    clean() { rm -rf "$work"; }
fi
[ "${KEEP:-}" = 1 ] || trap clean EXIT

# Runs a command under GNU time; prints "peak_kib cpu_seconds".
measure() {
    local t="$work/time.txt"
    if ! /usr/bin/time -v -o "$t" "$@" >"$work/stdout.txt" 2>"$work/stderr.txt"; then
        echo "failed: $*" >&2
        cat "$work/stderr.txt" >&2
        exit 1
    fi
    awk -F': ' '/Maximum resident/ {rss = $2} /User time/ {u = $2} /System time/ {s = $2}
        END {printf "%d %.2f\n", rss, u + s}' "$t"
}

echo "| command | jobs | peak RSS (MB) | bytes / job | CPU (s) |"
echo "| --- | ---: | ---: | ---: | ---: |"
for n in "${sizes[@]}"; do
    log="$work/synthetic-$n.swf"
    [ -f "$log" ] || python3 scripts/gen_swf.py --jobs "$n" --procs 512 --out "$log"
    for cmd in replay coalloc convert; do
        case $cmd in
        replay) args=(replay --policy easy --trace "$log" --out "$work/replay.csv") ;;
        coalloc) args=(coalloc --trace "$log" --out "$work/coalloc.csv") ;;
        convert) args=(trace convert "$log" --out "$work/convert.csv") ;;
        esac
        read -r kib cpu < <(measure "$bin" "${args[@]}")
        awk -v c="$cmd" -v n="$n" -v k="$kib" -v t="$cpu" 'BEGIN {
            printf "| %s | %d | %.0f | %.0f | %.1f |\n", c, n, k * 1024 / 1e6, k * 1024 / n, t }'
    done
done
