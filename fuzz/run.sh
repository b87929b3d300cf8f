#!/usr/bin/env bash
# Runs every fuzz target in turn for SECONDS each (default 600) on one core,
# seeding the corpora first if they are missing, and prints one line per
# target: executions, seconds, coverage, and whether a crash was found
# (crashes land in fuzz/artifacts/TARGET/; turn each into a test in
# tests/it/fuzz_regressions.rs). Usage, from the repository root:
#
#     fuzz/run.sh [SECONDS] [TARGET...]
#
# Needs a nightly toolchain and cargo-fuzz.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fen epd san pgn roundtrip)
[ -d "$here/corpus" ] || "$here/seed.sh"
cd "$here/.."
for target in "${targets[@]}"; do
    log="$here/target/$target.log"
    mkdir -p "$here/target" "$here/corpus/$target"
    case "$target" in
        fen | roundtrip) max_len=256 ;;
        epd) max_len=512 ;;
        san) max_len=1024 ;;
        *) max_len=8192 ;;
    esac
    # No sanitizer (several times faster; see CONTRIBUTING.md, Fuzzing).
    cargo +nightly fuzz run -s none "$target" "$here/corpus/$target" -- \
        -max_total_time="$seconds" -max_len="$max_len" -timeout=5 -rss_limit_mb=4096 \
        -print_final_stats=1 >"$log" 2>&1
    code=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    crash=$([ $code -eq 0 ] && echo "no crash" || echo "CRASH (exit $code, see $log)")
    echo "$target: ${runs:-?} executions in ${seconds} s, ${cov:-cov: ?}, $crash"
done
