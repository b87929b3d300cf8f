#!/usr/bin/env bash
# The 10-million-game run of docs/benchmarks.md: builds the bench input at
# 11,000 MiB with DISTINCT=1 (about 10.5 M games, every pass new games for
# dedupe), imports it part after part (about 1 GB each) into one fresh
# database with the full position index in the default mode (dedupe; the
# first part creates the database and has it alone, the next ones share it
# through the write-ahead log), then times the queries on the result. Prints a Markdown
# summary for docs/benchmarks.md at the end.
#
#   benches/bench-10m.sh DIR [SIZE_MB]
#
# DIR (outside the repository) holds the input, the database and the
# summary DIR/bench-10m-summary.md, which is always kept. SIZE_MB (MiB:
# the argument, else $SIZE_MB, else 11000) sizes the input; PART_MB
# (default 1000) each part. The input is built by benches/bench-input.sh, unless its parts
# are already in DIR, then cut at `[Event ` lines into parts from the end,
# truncating the whole file as it goes, so the cut never needs a second
# copy of the input. Each part is timed by GNU time (wall, user, sys, peak
# RSS) while the size of the database and its write-ahead log is sampled
# every second; its `import --timings` report (each stage's CPU seconds)
# is kept in DIR/timings-N.txt. Unless KEEP=1, each part is deleted once imported and the
# database at the end.
#
# The free space of DIR's file system is checked first: the run needs
# about 3.6 bytes of database (and write-ahead log) per input byte, plus
# 4 GiB for SQLite's temporary files and the input itself when KEEP=1.
#
# Queries (the position search, the explorer, show, info, one game's rows
# of the `plies` view, the SQL cookbook of docs/guide.md, read from the
# guide): one run to warm the page cache, then RUNS (default 5); best and
# median wall time. A command whose warm-up takes more than SLOW_S seconds
# (default 60) is timed once more only, and every run is stopped after
# QUERY_TIMEOUT seconds (default 3600). DBSTAT=0 skips the size of each
# table from SQLite's dbstat, which reads every page of the database.
# Other jobs on the machine change the figures: run it on a quiet one, and
# under `nice -n 19` where others work.
set -euo pipefail

usage() {
    echo "usage: $0 DIR [SIZE_MB]" >&2
    exit 2
}
[[ $# -ge 1 && $# -le 2 ]] || usage
size_mb=${2:-${SIZE_MB:-11000}}
part_mb=${PART_MB:-1000}
runs=${RUNS:-5}
slow_s=${SLOW_S:-60}
timeout_s=${QUERY_TIMEOUT:-3600}
keep=${KEEP:-0}
for setting in "SIZE_MB=$size_mb" "PART_MB=$part_mb" "RUNS=$runs" "SLOW_S=$slow_s" "QUERY_TIMEOUT=$timeout_s"; do
    [[ ${setting#*=} =~ ^[1-9][0-9]*$ ]] || { echo "$0: ${setting%%=*} must be a positive integer, not '${setting#*=}'" >&2; exit 2; }
done
for tool in /usr/bin/time timeout dd truncate df; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is needed" >&2; exit 2; }
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dir=$(realpath -m -- "$1")
case "$dir/" in
    "$repo"/*)
        echo "$0: refusing to write into $dir, inside the repository $repo" >&2
        exit 2
        ;;
esac
mkdir -p -- "$dir"

cargo build --release --bin pgnindex --manifest-path "$repo/Cargo.toml" >&2
bin=${CARGO_TARGET_DIR:-$repo/target}/release/pgnindex

name=bench-10m-${size_mb}m-p${part_mb}
input=$dir/$name.pgn
parts_list=$dir/$name.parts
cutting=$dir/$name.cutting
db=$dir/bench-10m.db
summary=$dir/bench-10m-summary.md
tmp=$(mktemp -d)
cleanup() {
    rm -rf -- "$tmp"
    if [[ $keep != 1 ]]; then
        rm -f -- "$db" "$db-wal" "$db-shm"
    fi
}
trap cleanup EXIT

gib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1073741824 }'; }

# A cut interrupted half-way leaves a truncated input: start again.
if [[ -e $cutting ]]; then
    echo "an earlier cut of the input was interrupted: building it again" >&2
    rm -f -- "$input" "$parts_list" "$dir/$name"-[0-9]*.pgn "$cutting"
fi
parts=()
if [[ -f $parts_list ]]; then
    mapfile -t parts <"$parts_list"
    for part in "${parts[@]}"; do
        [[ -f $dir/$part ]] || { parts=(); break; }
    done
fi

# The database is made afresh; its old files free their room for the check.
rm -f -- "$db" "$db-wal" "$db-shm"

# Free space: the database with the full index takes 3.3 bytes per byte of
# the bench input (schema version 10, 300 MiB); 3.6 leaves room for the
# write-ahead log and for a merge of segments, whose copy is written before
# the segments it replaces are freed. The input, when it is still to be
# built, is deleted part by part as the database grows, unless KEEP=1.
size_bytes=$((size_mb * 1048576))
need_input=0
if [[ ${#parts[@]} -eq 0 && ! -f $input && $keep == 1 ]]; then
    need_input=$size_bytes
fi
need_db=$((size_bytes * 36 / 10))
margin=$((4 * 1073741824))
need=$((need_db + need_input + margin))
avail=$(df -P -B1 -- "$dir" | awk 'NR == 2 { print $4 }')
if ((avail < need)); then
    echo "$0: $dir has $(gib "$avail") GiB free, and this run needs about $(gib "$need") GiB" \
        "(database $(gib "$need_db"), input $(gib "$need_input"), SQLite temporary files $(gib "$margin")):" \
        "free some space, choose another DIR or a smaller SIZE_MB" >&2
    exit 1
fi

# The byte offset of the first line after byte $2 of file $1 that starts a
# game's tags (`[Event `), looked for in the next 64 MiB.
event_after() (
    set +o pipefail
    local rel
    rel=$(dd if="$1" iflag=skip_bytes,count_bytes skip="$2" count=$((64 << 20)) bs=1M status=none \
        | LC_ALL=C awk 'NR > 1 && /^\[Event / { printf "%d\n", pos; exit } { pos += length($0) + 1 }')
    [[ -n $rel ]] || { echo "$0: no [Event line within 64 MiB after byte $2 of $1" >&2; exit 1; }
    echo $(($2 + rel))
)

if [[ ${#parts[@]} -eq 0 ]]; then
    if [[ ! -f $input ]]; then
        DISTINCT=1 "$repo/benches/bench-input.sh" "$input" "$size_mb"
    fi
    total=$(stat -c %s -- "$input")
    part_bytes=$((part_mb * 1048576))
    n=$(((total + part_bytes / 2) / part_bytes))
    ((n >= 1)) || n=1
    cuts=(0)
    for ((k = 1; k < n; k++)); do
        cuts+=("$(event_after "$input" $((k * part_bytes)))")
        if ((cuts[k] <= cuts[k - 1] || cuts[k] >= total)); then
            echo "$0: no game starts between the cuts at bytes ${cuts[k - 1]} and $((k * part_bytes)): PART_MB is too small" >&2
            exit 1
        fi
    done
    : >"$cutting"
    parts=()
    for ((k = n; k >= 1; k--)); do
        part=$(printf '%s-%02d.pgn' "$name" "$k")
        if ((k == 1)); then
            mv -f -- "$input" "$dir/$part"
        else
            dd if="$input" of="$dir/$part" iflag=skip_bytes skip="${cuts[k - 1]}" bs=4M status=none
            truncate -s "${cuts[k - 1]}" -- "$input"
        fi
        parts=("$part" "${parts[@]}")
    done
    printf '%s\n' "${parts[@]}" >"$parts_list"
    rm -f -- "$cutting"
fi

input_bytes=0
input_games=0
for part in "${parts[@]}"; do
    input_bytes=$((input_bytes + $(stat -c %s -- "$dir/$part")))
    input_games=$((input_games + $(LC_ALL=C grep -c '^\[Event ' -- "$dir/$part" || true)))
done
started=$(date -u '+%Y-%m-%d %H:%M UTC')
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'),"
machine+=" $(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo) GiB of memory"
revision=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)
echo "input: ${#parts[@]} parts in $dir, $input_bytes bytes, $input_games games ('[Event ' lines)"
echo "binary: $bin ($revision); machine: $machine; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# Import, part after part. Rows of $tmp/parts.tsv: part, bytes, games and
# positions the import reports, wall, user, sys, peak RSS (KiB), database
# bytes after, peak database + log bytes, load average before.
size_of_db() {
    local s=0 f
    for f in "$db" "$db-wal"; do
        [[ -f $f ]] && s=$((s + $(stat -c %s -- "$f" 2>/dev/null || echo 0)))
    done
    echo "$s"
}
: >"$tmp/parts.tsv"
peak_disk=0
for ((k = 0; k < ${#parts[@]}; k++)); do
    part=$dir/${parts[k]}
    bytes=$(stat -c %s -- "$part")
    cat -- "$part" >/dev/null
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" \
        "$bin" import --quiet --timings --db "$db" "$part" 2>"$tmp/import.err" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        s=$(size_of_db)
        ((s <= peak_disk)) || peak_disk=$s
        sleep 1
    done
    status=0
    wait "$pid" || status=$?
    if ((status != 0)); then
        echo "$0: the import of $part failed (exit $status):" >&2
        grep -v '^Command exited' "$tmp/import.err" | tail -n 5 >&2
        exit 1
    fi
    read -r wall user sys rss <"$tmp/time"
    line=$(grep -m1 ' games imported' "$tmp/import.err" || tail -n 1 "$tmp/import.err")
    grep -v '^Command exited' "$tmp/import.err" >"$dir/timings-$((k + 1)).txt" || true
    # The summary groups digits by thousands (949,022).
    games=$(sed -nE 's/.* ([0-9,]+) games imported.*/\1/p' <<<"$line" | tr -d ,)
    positions=$(sed -nE 's/.* ([0-9,]+) positions in .*/\1/p' <<<"$line" | tr -d ,)
    after=$(size_of_db)
    ((after <= peak_disk)) || peak_disk=$after
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$((k + 1))" "$bytes" "${games:-?}" "${positions:-?}" \
        "$wall" "$user" "$sys" "$rss" "$after" "$peak_disk" "$load" >>"$tmp/parts.tsv"
    echo "part $((k + 1))/${#parts[@]}: $line"
    awk -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v b="$bytes" -v d="$after" 'BEGIN {
        printf "   wall %.1f s (%.1f s/GB), user %.1f s, sys %.1f s, peak RSS %.0f MiB; database %.2f GB\n",
            w, w / (b / 1e9), u, s, r / 1024, d / 1e9 }'
    if [[ $keep != 1 ]]; then
        rm -f -- "$part"
    fi
done
if [[ $keep != 1 ]]; then
    rm -f -- "$parts_list"
fi

export PGNINDEX_DB=$db
sql() { "$bin" sql --format csv "$1" | tail -n +2; }

db_bytes=$(stat -c %s -- "$db")
games=$(sql "SELECT count(*) FROM games")
positions=$(sql "SELECT coalesce(sum(rows), 0) FROM position_segments")
segments=$(sql "SELECT count(*) FROM position_segments")
free_bytes=$(sql "SELECT freelist_count * page_size FROM pragma_freelist_count, pragma_page_size")
echo "database: $db_bytes bytes, $games games, $positions positions in $segments segments"

# Bytes by part of the schema, from every page of the file.
: >"$tmp/dbstat.csv"
if [[ ${DBSTAT:-1} != 0 ]]; then
    start=$(date +%s)
    sql "SELECT CASE
                    WHEN name GLOB 'positions_[0-9]*' THEN 'position segments'
                    WHEN name GLOB 'dedupe_[0-9]*' THEN 'dedupe segments'
                    WHEN name IN ('games', 'game_rows', 'game_texts', 'game_tags', 'ply_data', 'games_summary') THEN name
                    ELSE 'the other tables and indexes'
                END AS part,
                sum(pgsize) AS bytes
         FROM dbstat
         GROUP BY part
         ORDER BY bytes DESC" >"$tmp/dbstat.csv"
    echo "dbstat: $(($(date +%s) - start)) s"
fi

# Queries. Rows of $tmp/queries.tsv: label, command, best ms, median ms, runs.
: >"$tmp/queries.tsv"

# Milliseconds of one run of "$@", or "timeout" or "failed".
once() {
    local start end status=0
    start=$(date +%s%N)
    timeout "$timeout_s" "$@" >"$tmp/query.out" 2>"$tmp/query.err" || status=$?
    end=$(date +%s%N)
    if ((status == 124)); then
        echo timeout
    elif ((status != 0)); then
        echo failed
    else
        echo $(((end - start) / 1000000))
    fi
}

# measure LABEL SHOWN-COMMAND COMMAND...: best and median of the runs after
# one warm-up.
measure() {
    local label=$1 shown=$2
    shift 2
    local first n=$runs best median
    first=$(once "$@")
    if [[ $first == timeout || $first == failed ]]; then
        if [[ $first == failed ]]; then
            head -n 3 "$tmp/query.err" | sed 's/^/   /' >&2
        else
            first="> ${timeout_s} s"
        fi
        printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$shown" "$first" "" 1 >>"$tmp/queries.tsv"
        echo "$first  $label"
        return
    fi
    ((first <= slow_s * 1000)) || n=1
    local times=() t
    for ((i = 0; i < n; i++)); do
        t=$(once "$@")
        [[ $t =~ ^[0-9]+$ ]] || { times=(); break; }
        times+=("$t")
    done
    if [[ ${#times[@]} -eq 0 ]]; then
        printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$shown" "$t on a repeat" "" 1 >>"$tmp/queries.tsv"
        echo "$t on a repeat  $label"
        return
    fi
    mapfile -t times < <(printf '%s\n' "${times[@]}" | sort -n)
    best=${times[0]}
    median=${times[$(((n - 1) / 2))]}
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$shown" "$best" "$median" "$n" >>"$tmp/queries.tsv"
    printf '%8s / %8s ms (%s runs)  %s\n' "$best" "$median" "$n" "$label"
}

# A position few games reach, the same on every run: the position after
# ply 30 of the first game past the middle of the ids with more than 40
# plies (each DISTINCT pass holds one copy of it).
game=$(sql "SELECT id FROM games WHERE id >= (SELECT max(id) / 2 FROM games) AND ply_count > 40 ORDER BY id LIMIT 1")
rare=$("$bin" show "$game" --fens | awk -F'\t' '$1 == 30 { print $3 }')
[[ -n $rare ]] || { echo "$0: game $game has no position after ply 30" >&2; exit 1; }
rare_games=$("$bin" find --fen "$rare" --count)
e4_games=$("$bin" find --moves "1. e4" --count)
echo "game $game; its position after ply 30: $rare ($rare_games games); after 1. e4: $e4_games games"

measure "a rare position ($rare_games games, all listed, each verified)" \
    "pgnindex find --fen FEN" "$bin" find --fen "$rare"
measure "count after 1. e4 ($e4_games games)" \
    'pgnindex find --moves "1. e4" --count' "$bin" find --moves "1. e4" --count
measure "explorer of the start position" "pgnindex explore" "$bin" explore
measure "explorer after 1. e4 c5" 'pgnindex explore --moves "1. e4 c5"' "$bin" explore --moves "1. e4 c5"
measure "one game as PGN" "pgnindex show $game" "$bin" show "$game"
measure "summary" "pgnindex info" "$bin" info
measure "one game's rows of the plies view" \
    "pgnindex sql \"SELECT * FROM plies WHERE game_id = $game\"" \
    "$bin" sql --format csv "SELECT * FROM plies WHERE game_id = $game"

# The cookbook: every ```sql block under "## SQL cookbook", named by the
# "### " heading above it.
mkdir -p "$tmp/cookbook"
awk -v out="$tmp/cookbook" '
    /^## SQL cookbook/ { on = 1; next }
    on && /^## / { on = 0 }
    !on { next }
    /^### / { title = substr($0, 5); next }
    /^```sql[[:space:]]*$/ { n++; f = sprintf("%s/%02d.sql", out, n); print title > (f ".title"); insql = 1; next }
    insql && /^```[[:space:]]*$/ { insql = 0; close(f); close(f ".title"); next }
    insql { print > f }
' "$repo/docs/guide.md"
for f in "$tmp"/cookbook/*.sql; do
    title=$(cat -- "$f.title")
    measure "cookbook $title" "pgnindex sql \"…\"" "$bin" sql --format csv "$(cat -- "$f")"
done

# The summary, in Markdown. mawk has no thousands separators of its own.
commas='function commas(n, s, r) {
    s = sprintf("%.0f", n)
    while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
    return s r
}'
{
    echo "Run of \`benches/bench-10m.sh\` started $started: $revision; $machine."
    echo "Input: $input_bytes bytes (DISTINCT=1 bench input at $size_mb MiB), $input_games games, in ${#parts[@]} parts."
    echo
    echo "| part | input, total | games stored, total | wall | s/GB | user | sys | peak RSS | database after | load before |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    awk -F'\t' "$commas"'{
        sum_b += $2; sum_g += $3
        printf "| %d | %.2f GB | %s | %.1f s | %.1f | %.1f s | %.1f s | %.0f MiB | %.2f GB | %s |\n",
            $1, sum_b / 1e9, commas(sum_g), $5, $5 / ($2 / 1e9), $6, $7, $8 / 1024, $9 / 1e9, $11
    }' "$tmp/parts.tsv"
    echo
    awk -F'\t' -v n="${#parts[@]}" '{ b[$1] = $2; w[$1] = $5; cb[$1] = cb[$1 - 1] + $2; tw += $5; tb += $2
        if ($8 > rss) rss = $8; peak = $10 }
        END {
            printf "Wall time per GB (10^9 bytes of input):"
            for (k = 1; k <= n; k++)
                if (k == 1 || k == 5 || k == n) {
                    printf " part %d (input at %.1f GB): %.1f s/GB;", k, cb[k] / 1e9, w[k] / (b[k] / 1e9)
                }
            printf " whole import %.1f s, %.1f s/GB. Peak RSS %.0f MiB; peak database with its log %.2f GB.\n",
                tw, tw / (tb / 1e9), rss / 1024, peak / 1e9
        }' "$tmp/parts.tsv"
    echo
    awk -v d="$db_bytes" -v g="$games" -v p="$positions" -v s="$segments" -v f="$free_bytes" "$commas"'BEGIN {
        printf "Database: %.2f GB (%s bytes in free pages), %s games, %s positions in %d segments: %.0f bytes per game, %.1f bytes per position (whole file).\n",
            d / 1e9, commas(f), commas(g), commas(p), s, d / g, d / p }'
    if [[ -s $tmp/dbstat.csv ]]; then
        echo
        echo "| part of the database (dbstat) | bytes | per game | per position |"
        echo "|---|---|---|---|"
        awk -F, -v g="$games" -v p="$positions" '{
            printf "| %s | %.2f GB | %.1f | %.2f |\n", $1, $2 / 1e9, $2 / g, $2 / p }' "$tmp/dbstat.csv"
    fi
    echo
    echo "Queries: best / median wall time of the runs after one warm-up (runs: how many)." \
        "The rare position is the one after ply 30 of game $game: \`$rare\`."
    echo
    echo "| what | command | best / median | runs |"
    echo "|---|---|---|---|"
    awk -F'\t' '{
        t = ($4 == "") ? $3 : sprintf("%s / %s ms", $3, $4)
        printf "| %s | `%s` | %s | %s |\n", $1, $2, t, $5 }' "$tmp/queries.tsv"
    echo
    echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
} >"$summary"
echo
cat -- "$summary"
