#!/usr/bin/env bash
# Parquet export of a database: time, peak memory, and the bytes of each
# table in Parquet against its pages in SQLite (per game, per position).
#
#   benches/parquet-bench.sh DB [RUNS]
#
# Uses $PGNINDEX, else target/release/pgnindex (built if missing), and
# python3's sqlite3.
# The files go to a scratch directory beside DB, deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

db=${1:?usage: benches/parquet-bench.sh DB [RUNS]}
runs=${2:-1}
bin=${PGNINDEX:-target/release/pgnindex}
[ -x "$bin" ] || cargo build --release --quiet
out=$(mktemp -d "$(dirname "$db")/parquet-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

for run in $(seq "$runs"); do
    rm -rf "$out/files"
    /usr/bin/time -f "run $run: %e s wall, %U s user, %S s sys, %M KB peak RSS" \
        "$bin" export --db "$db" --format parquet -o "$out/files" 2>&1 | sed 's/^pgnindex: //'
done

python3 - "$db" "$out/files" <<'EOF'
import glob, os, sqlite3, sys
db, files = sys.argv[1], sys.argv[2]
c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
pages = {}
for name, size in c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
    key = "positions" if name.startswith("positions_") else name
    pages[key] = pages.get(key, 0) + size
games = c.execute("SELECT count(*) FROM games").fetchone()[0]
positions = c.execute("SELECT sum(rows) FROM position_segments").fetchone()[0] or 0
sqlite_of = {"games": ["games", "game_rows", "game_texts", "sqlite_autoindex_game_texts_1", "games_summary"], "plies": ["ply_data"], "tags": ["game_tags"],
             "positions": ["positions"]}
total = 0
print(f"{games} games, {positions} positions; {os.path.getsize(db)} B database")
print("table      parquet B  sqlite B (tables, indexes)  parquet/sqlite")
for table, sources in sqlite_of.items():
    size = sum(os.path.getsize(f) for f in glob.glob(f"{files}/{table}/*.parquet"))
    total += size
    sq = sum(pages.get(s, 0) for s in sources)
    print(f"{table:10} {size:10}  {sq:10} ({'+'.join(sources)})  {size / sq:.2f}" if sq else f"{table:10} {size:10}")
p = sum(os.path.getsize(f) for f in glob.glob(f"{files}/positions/*.parquet"))
g = sum(os.path.getsize(f) for f in glob.glob(f"{files}/games/*.parquet"))
if positions:
    print(f"positions: {p / positions:.2f} B a position in Parquet, {pages['positions'] / positions:.2f} in SQLite")
print(f"games: {g / games:.1f} B a game in Parquet (movetexts written back), {pages['games'] / games:.1f} in SQLite's games table")
print(f"all files: {total} B")
EOF
