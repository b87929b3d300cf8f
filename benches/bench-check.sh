#!/usr/bin/env bash
# Times `pgnindex check` on a big PGN file (see benches/bench-input.sh)
# against two baselines that only read the bytes:
#   - `LC_ALL=C grep -c '\[Event '`: the game-count baseline of STYLE point 16;
#   - `cat INPUT | wc -c`: reading speed (plain `wc -c FILE` only stats it).
# With `--threads` available, check runs with the default (all cores), 1
# and 2 threads.
#
#   benches/bench-check.sh INPUT
#
# RUNS (default 3) runs per command, after one untimed read that puts INPUT
# in the page cache. Uses hyperfine for the timings if installed, else the
# shell clock; peak RSS (which counts the pages of the memory-mapped
# input) and CPU use (above 100 % only with threads at work) come from one
# more run under /usr/bin/time -v. The load average is printed before and
# after: on a shared machine another process on a core shows up as noise.
# MB = 10^6 bytes, as `pgnindex check` prints. The check summary of the
# first run is printed; the script fails if check reports a game with an
# error or cannot read INPUT (warnings are counted, not fatal).
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 INPUT" >&2; exit 2; }
input=$1
[[ -f $input ]] || { echo "$0: not a file: $input" >&2; exit 2; }
runs=${RUNS:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "$0: RUNS must be a positive integer" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "$0: /usr/bin/time (GNU time) is needed for peak RSS" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cargo build --release --bin pgnindex --manifest-path "$repo/Cargo.toml" >&2
bin=${CARGO_TARGET_DIR:-$repo/target}/release/pgnindex

tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT

bytes=$(stat -c %s -- "$input")
cat -- "$input" >/dev/null
games=$(LC_ALL=C grep -c '\[Event ' -- "$input" || true)

echo "input: $input, $bytes bytes, $games games ('[Event ' lines)"
echo "binary: $bin ($(git -C "$repo" describe --always --dirty 2>/dev/null || echo 'no git'))"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), runs: $runs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
if command -v hyperfine >/dev/null; then echo "timer: hyperfine"; else echo "timer: shell clock"; fi
printf '%-28s %9s %9s %9s %9s %12s %11s %5s\n' \
    what best_s median_s MB/s_best MB/s_med games/s_best peak_RSS_MB cpu

# Times `$@` (stdout to $tmp/out, stderr to $tmp/err) and prints one row.
# The exit status of the command is left in $status (of the RSS run).
measure() {
    local label=$1
    shift
    local times=()
    # Peak RSS, from one run under GNU time; this run's output is the one kept.
    status=0
    /usr/bin/time -v -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    local rss_kb cpu
    rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
    cpu=$(awk -F': ' '/Percent of CPU this job got/ {print $2}' "$tmp/time")
    if command -v hyperfine >/dev/null; then
        # -i: check exits 1 when a game has an error; that is reported
        # below. Output to a file, not /dev/null, which GNU grep
        # short-circuits.
        if ! hyperfine -i -N --warmup 0 --runs "$runs" --export-csv "$tmp/hf.csv" \
            --output="$tmp/out.timed" -- "$(printf '%q ' "$@")" >"$tmp/hf.log" 2>&1; then
            cat "$tmp/hf.log" >&2
            exit 1
        fi
        # CSV: command,mean,stddev,median,user,system,min,max (counted from
        # the end: the command may hold commas).
        times=("$(awk -F, 'NR == 2 {print $(NF - 1)}' "$tmp/hf.csv")"
            "$(awk -F, 'NR == 2 {print $(NF - 4)}' "$tmp/hf.csv")")
    else
        local all=() i start end
        for ((i = 0; i < runs; i++)); do
            start=$(date +%s%N)
            # Not /dev/null: GNU grep then stops at the first match.
            "$@" >"$tmp/out.timed" 2>&1 || true
            end=$(date +%s%N)
            all+=("$(((end - start) / 1000))")
        done
        # Best and median, in seconds.
        mapfile -t all < <(printf '%s\n' "${all[@]}" | sort -n)
        times=("$(awk -v us="${all[0]}" 'BEGIN {printf "%.3f", us / 1e6}')"
            "$(awk -v us="${all[$((runs / 2))]}" 'BEGIN {printf "%.3f", us / 1e6}')")
    fi
    awk -v label="$label" -v best="${times[0]}" -v med="${times[1]}" -v bytes="$bytes" \
        -v games="$games" -v rss="$rss_kb" -v cpu="$cpu" 'BEGIN {
            printf "%-28s %9.3f %9.3f %9.1f %9.1f %12.0f %11.1f %5s\n", label, best, med,
                bytes / 1e6 / best, bytes / 1e6 / med, games / best, rss / 1024, cpu
        }'
}

# `pgnindex check`: keep the summary and the error/warning counts.
check_row() {
    local label=$1
    shift
    measure "$label" "$bin" check "$@" -- "$input"
    local summary
    summary=$(tail -n 1 "$tmp/out")
    echo "    exit $status; $summary"
    echo "    warnings printed: $(grep -c ': warning: ' "$tmp/out" || true); error lines: $(grep -vc -e ': warning: ' -e '^games ' "$tmp/out" || true)"
    if [[ -s $tmp/err ]]; then
        head -n 5 "$tmp/err" | sed 's/^/    stderr: /'
    fi
    if [[ $status -ne 0 || $summary != *"with errors 0,"* ]]; then
        check_failed=1
    fi
}

check_failed=0
if "$bin" check --help | grep -q -- '--threads'; then
    check_row "pgnindex check (default)"
    check_row "pgnindex check --threads 1" --threads 1
    check_row "pgnindex check --threads 2" --threads 2
else
    check_row "pgnindex check"
fi
measure "grep -c '\\[Event '" env LC_ALL=C grep -c '\[Event ' -- "$input"
measure "cat | wc -c" sh -c 'cat -- "$1" | wc -c' sh "$input"

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

if ((check_failed)); then
    echo "$0: pgnindex check reported errors (or failed) on $input" >&2
    exit 1
fi
