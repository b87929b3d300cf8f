#!/usr/bin/env bash
# Parquet export of a database by pgnindex against DuckDB's own
# `COPY (SELECT … FROM sqlite_scan(DB, TABLE)) TO … (FORMAT parquet,
# COMPRESSION zstd)`, table by table, alternated round by round: wall and
# CPU time, bytes written, MB written per second.
#
#   benches/parquet-vs-duckdb.sh DB [ROUNDS]
#
# DuckDB 1.5.5 and its SQLite extension come from PyPI into a virtual
# environment ($DUCKDB_VENV, default /tmp/duckdb-1.5.5), made on the first
# run; nothing is downloaded from DuckDB's own site. Uses $PGNINDEX, else
# target/release/pgnindex (built if missing). The files go to a scratch
# directory beside DB, deleted at the end.
#
# What DuckDB writes (each its own COPY, on all cores):
#   games             the stored table: `movetext` stays NULL where
#                     pgnindex stores it so (DuckDB cannot write it back)
#   tags, plies       the views, computed by SQLite inside the scan, cast
#                     to pgnindex's column types (a view's columns have no
#                     declared type, so the scan hands them over as BLOBs)
#   positions         the view, in storage order: no sort
#   positions-sorted  the view, ORDER BY hash (what pgnindex writes)
#   segments-sorted   the segment tables scanned by DuckDB itself and
#                     unpacked in DuckDB, ORDER BY hash: DuckDB at its best
set -euo pipefail
cd "$(dirname "$0")/.."

db=$(realpath "${1:?usage: benches/parquet-vs-duckdb.sh DB [ROUNDS]}")
rounds=${2:-1}
bin=${PGNINDEX:-target/release/pgnindex}
[ -x "$bin" ] || cargo build --release --quiet
venv=${DUCKDB_VENV:-/tmp/duckdb-1.5.5}
if ! "$venv/bin/python" -c "import duckdb, duckdb_extensions" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet duckdb==1.5.5 duckdb-extensions==1.5.5 \
        duckdb-extension-sqlite-scanner==1.5.5
fi
out=$(mktemp -d "$(dirname "$db")/parquet-vs-duckdb.XXXXXX")
trap 'rm -rf "$out"' EXIT

for round in $(seq "$rounds"); do
    rm -rf "$out/pgnindex"
    /usr/bin/time -o "$out/time" -f "%e %U %S %M" \
        "$bin" export --db "$db" --format parquet -o "$out/pgnindex" >/dev/null 2>&1
    read -r wall user sys rss <"$out/time"
    bytes=$(cat "$out"/pgnindex/*/*.parquet | wc -c)
    awk -v r="$round" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" -v b="$bytes" 'BEGIN {
        printf "round %s pgnindex, every table: %.2f s wall, %.2f s user, %.2f s sys, %d KB peak, %d B, %.1f MB/s\n",
            r, w, u, s, m, b, b / w / 1e6 }'
    "$venv/bin/python" - "$db" "$out" "$round" <<'EOF'
import os, resource, sqlite3, sys, time
import duckdb, duckdb_extensions

db, out, rnd = sys.argv[1], sys.argv[2], sys.argv[3]
# The extension is installed into the virtual environment, not ~/.duckdb.
con = duckdb.connect(config={"extension_directory": f"{sys.prefix}/duckdb-extensions"})
duckdb_extensions.import_extension("sqlite_scanner", con=con)
con.sql("LOAD sqlite_scanner")
q = db.replace("'", "''")
scan = lambda table: f"sqlite_scan('{q}', '{table}')"
text = lambda c: f"decode({c})"
typed = lambda c, t: f"CAST(decode({c}) AS {t}) AS {c}"
segments = [name for name, layout in sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
    "SELECT name, layout FROM position_segments ORDER BY id") if layout == 1]
positions_view = (f"SELECT hash, {typed('game_id', 'BIGINT')}, {typed('ply', 'INTEGER')}, "
                  f"{typed('next_move', 'INTEGER')}, {text('fen')} AS fen FROM {scan('positions')}")
# The packed `gpm` column (layout 1) unpacked as the view does, by DuckDB.
unpacked = " UNION ALL ".join(
    f"SELECT hash, (gpm >> 24) & 4294967295 AS game_id, "
    f"CAST(((gpm >> 15) & 511) | ((gpm >> 56) << 9) AS INTEGER) AS ply, "
    f"CAST(nullif(gpm & 32767, 32767) AS INTEGER) AS next_move, NULL::VARCHAR AS fen "
    f"FROM {scan(name)}" for name in segments)
queries = [
    ("games", f"SELECT * FROM {scan('games')}"),
    ("tags", f"SELECT game_id, {typed('ord', 'INTEGER')}, name, {text('value')} AS value "
             f"FROM {scan('tags')}"),
    ("plies", f"SELECT game_id, {typed('ply', 'INTEGER')}, {text('san')} AS san, "
              f"{typed('clock', 'DOUBLE')}, {typed('emt', 'DOUBLE')}, {typed('eval', 'DOUBLE')}, "
              f"{typed('mate', 'INTEGER')}, {text('nags')} AS nags, {text('comment')} AS comment "
              f"FROM {scan('plies')}"),
    ("positions", positions_view),
    ("positions-sorted", f"{positions_view} ORDER BY hash"),
]
if segments:
    queries.append(("segments-sorted", f"SELECT * FROM ({unpacked}) ORDER BY hash"))
total = {"wall": 0.0, "cpu": 0.0, "bytes": 0}
for name, sql in queries:
    path = f"{out}/{name}.parquet"
    before, t0 = resource.getrusage(resource.RUSAGE_SELF), time.time()
    con.sql(f"COPY ({sql}) TO '{path}' (FORMAT parquet, COMPRESSION zstd)")
    wall, after = time.time() - t0, resource.getrusage(resource.RUSAGE_SELF)
    user, sys_ = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    size = os.path.getsize(path)
    rows = con.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchone()[0]
    os.remove(path)
    print(f"round {rnd} duckdb {name:17} {wall:6.2f} s wall, {user:6.2f} s user, {sys_:5.2f} s sys, "
          f"{rows:9} rows, {size:10} B, {size / wall / 1e6:5.1f} MB/s", flush=True)
    if name in ("games", "tags", "plies", "positions-sorted"):
        total["wall"] += wall; total["cpu"] += user + sys_; total["bytes"] += size
print(f"round {rnd} duckdb, games + tags + plies + positions-sorted: {total['wall']:.2f} s wall, "
      f"{total['cpu']:.2f} s CPU, {total['bytes']} B, {total['bytes'] / total['wall'] / 1e6:.1f} MB/s",
      flush=True)
EOF
done
