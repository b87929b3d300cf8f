#!/usr/bin/env bash
# Times the query commands on a database of a million games or more: find
# by a rare position, find --count after 1. e4, explore of the start
# position, startup, material and pattern searches, and a few others
# (docs/benchmarks.md, Queries).
#
#   benches/query-bench.sh DIR [SIZE_MB]
#
# DIR (outside the repository) holds the bench input DIR/bench.pgn, made by
# benches/bench-input.sh with SIZE_MB MiB (default 1200, about 1.15 M
# games), and the database DIR/bench.db, imported with --keep-duplicates
# (the input repeats the corpus, so dedupe would keep one pass of it).
# Both are made only if missing: the import takes about a minute on two
# cores. The release binary is built first.
#
# Each command runs once to warm the page cache, then RUNS times (default
# 5); the line printed is "best / median ms" and the command. Set NICE=1 to
# run everything under nice (on a shared machine).
set -euo pipefail

usage() {
    echo "usage: $0 DIR [SIZE_MB]" >&2
    exit 2
}
[[ $# -ge 1 && $# -le 2 ]] || usage
dir=$1
size_mb=${2:-1200}
runs=${RUNS:-5}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
nice=()
[[ ${NICE:-0} == 1 ]] && nice=(nice)

mkdir -p -- "$dir"
input=$dir/bench.pgn
db=$dir/bench.db

(cd "$repo" && "${nice[@]}" cargo build --release --quiet)
bin=$repo/target/release/pgnindex

if [[ ! -f $input ]]; then
    "${nice[@]}" "$repo/benches/bench-input.sh" "$input" "$size_mb"
fi
if [[ ! -f $db ]]; then
    echo "importing $input into $db ..."
    /usr/bin/env time -f "import: %e s, %M KB peak" \
        "${nice[@]}" "$bin" import --quiet --keep-duplicates --db "$db" "$input"
fi
export PGNINDEX_DB=$db

# Milliseconds of one run of "$@" (output discarded).
once() {
    local start end
    start=$(date +%s%N)
    "${nice[@]}" "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    echo $(((end - start) / 1000000))
}

# Best and median of $runs runs after one warm-up.
measure() {
    local label=$1
    shift
    once "$@" >/dev/null
    local times=()
    for _ in $(seq "$runs"); do
        times+=("$(once "$@")")
    done
    local sorted
    sorted=$(printf '%s\n' "${times[@]}" | sort -n)
    local best median
    best=$(head -1 <<<"$sorted")
    median=$(sed -n "$(((runs + 1) / 2))p" <<<"$sorted")
    printf '%6s / %6s ms  %s\n' "$best" "$median" "$label"
}

games=$("$bin" sql "SELECT count(*) FROM games" --format csv | tail -1)
echo "database: $db, $games games, $(du -h "$db" | cut -f1)"

# A position few games reach: the middle game's position after 30 plies.
rare=$("$bin" sql "SELECT fen_at(id, 30) FROM games WHERE id >= (SELECT max(id) / 2 FROM games) AND ply_count > 40 LIMIT 1" --format csv | tail -1)
rare_games=$("$bin" find --fen "$rare" --count)
e4_games=$("$bin" find --moves "1. e4" --count)
echo "rare position: $rare ($rare_games games); after 1. e4: $e4_games games"

measure "startup: pgnindex --version" "$bin" --version
measure "startup: pgnindex info --help" "$bin" info --help
measure "find --fen (rare, $rare_games games, all listed and verified)" "$bin" find --fen "$rare"
measure "find --moves '1. e4' --count ($e4_games games)" "$bin" find --moves "1. e4" --count
measure "explore (start position)" "$bin" explore
measure "explore --moves '1. e4 c5'" "$bin" explore --moves "1. e4 c5"
measure "explore --moves '1. e4' --min-elo 2500 (filtered: reads the games)" "$bin" explore --moves "1. e4" --min-elo 2500
measure "find --moves '1. e4' (first 100 games, verified)" "$bin" find --moves "1. e4"
measure "find --moves '1. e4' --player carlsen --count" "$bin" find --moves "1. e4" --player carlsen --count
measure "find --player carlsen --limit 20 (headers only)" "$bin" find --player carlsen --limit 20
measure "export --fen (rare) to /dev/null" "$bin" export --fen "$rare"
measure "info" "$bin" info
measure "find --material KRP-KR --count (material index)" "$bin" find --material KRP-KR --count
measure "explore --material KQ-KRR --either-color" "$bin" explore --material KQ-KRR --either-color
measure "find --pattern 'Nd5 pd6' --count (replays the candidates)" "$bin" find --pattern "Nd5 pd6" --count
