#!/usr/bin/env bash
# Times `pgnindex import` end to end on a big PGN file (see
# benches/bench-input.sh) into a fresh database, in these modes:
#   - full per-ply position index;
#   - --no-positions (headers and moves only);
#   - both again with --shared (write-ahead log, queries welcome; a new
#     database is otherwise taken alone: rollback journal, pages written
#     once);
# each with --keep-duplicates (the bench input repeats the corpus, so
# without it almost every game is a duplicate) and with the default
# dedupe. Prints wall/user/sys seconds and peak RSS (/usr/bin/time), the
# summary line, games/s, plies/s, MB/s, and the database size per indexed
# position (whole file, and the position segments alone via dbstat when the
# sqlite3 shell has it).
#
#   benches/bench-import.sh INPUT [THREADS]
#
# DB_DIR (default: a temporary directory) holds the databases; they are
# removed at the end unless KEEP=1.
set -euo pipefail

[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 INPUT [THREADS]" >&2; exit 2; }
input=$1
threads=${2:-2}
[[ -f $input ]] || { echo "$0: not a file: $input" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "$0: /usr/bin/time (GNU time) is needed" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cargo build --release --bin pgnindex --manifest-path "$repo/Cargo.toml" >&2
bin=${CARGO_TARGET_DIR:-$repo/target}/release/pgnindex

dir=${DB_DIR:-$(mktemp -d)}
mkdir -p "$dir"
[[ ${KEEP:-0} == 1 ]] || trap 'rm -f -- "$dir"/bench-*.db*' EXIT

bytes=$(stat -c %s -- "$input")
cat -- "$input" >/dev/null
echo "input: $input, $bytes bytes; threads $threads; load: $(cut -d' ' -f1-3 /proc/loadavg)"

run() {
    local name=$1
    shift
    local db=$dir/bench-$name.db
    rm -f -- "$db" "$db-wal" "$db-shm"
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time" \
        "$bin" import --quiet --threads "$threads" --db "$db" "$@" "$input" 2>"$dir/summary"
    read -r wall user sys rss <"$dir/time"
    local summary
    summary=$(tail -n 1 "$dir/summary")
    local size
    size=$(stat -c %s -- "$db")
    local games plies positions
    games=$(sqlite3 "$db" "SELECT count(*) FROM games" 2>/dev/null || echo "?")
    plies=$(sqlite3 "$db" "SELECT sum(ply_count) FROM games" 2>/dev/null || echo "?")
    positions=$(sqlite3 "$db" "SELECT coalesce(sum(rows), 0) FROM position_segments" 2>/dev/null || echo "?")
    local segment_bytes
    segment_bytes=$(sqlite3 "$db" "SELECT sum(pgsize) FROM dbstat WHERE name GLOB 'positions_[0-9]*'" 2>/dev/null || echo "?")
    echo "== $name: $*"
    echo "   $summary"
    echo "   wall ${wall} s, user ${user} s, sys ${sys} s, peak RSS $((rss / 1024)) MiB"
    awk -v w="$wall" -v g="$games" -v p="$plies" -v b="$bytes" -v s="$size" -v n="$positions" -v sb="$segment_bytes" 'BEGIN {
        printf "   %.0f games/s, %.0f plies/s, %.1f MB/s; database %.0f MB", g / w, p / w, b / w / 1e6, s / 1e6
        if (n > 0) {
            printf ", %.1f bytes/position (whole file)", s / n
            if (sb != "?" && sb != "") printf ", %.1f bytes/position (position segments)", sb / n
        }
        printf "\n"
    }'
}

run full --keep-duplicates
run no-positions --keep-duplicates --no-positions
run full-shared --keep-duplicates --shared
run no-positions-shared --keep-duplicates --no-positions --shared
run dedupe
