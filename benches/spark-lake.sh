#!/usr/bin/env bash
# The Spark SQL of docs/scale.md run by Spark in local mode on a lake of
# two shards, each statement in turn, every answer compared with DuckDB's
# on the same files (DuckDB's answers are held to SQLite's by
# tests/it/parquet.rs), and the games counted through the views of one game
# per dedupe key compared with one database of both inputs.
#
#   benches/spark-lake.sh INPUT1 INPUT2
#
# INPUT1 becomes shard 1, INPUT2 shard 2 (`import --parquet`); the
# database imports INPUT1 then INPUT2. $PYTHON (default python3) must
# import pyspark and duckdb (`pip install pyspark duckdb`; Spark needs
# Java 17 or later). Uses $PGNINDEX, else target/release/pgnindex (built
# if missing). Prints one line per statement and exits 1 on a difference.
# The files go to a temporary directory, deleted at the end unless KEEP=1.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 INPUT1 INPUT2" >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
bin=${PGNINDEX:-${CARGO_TARGET_DIR:-$repo/target}/release/pgnindex}
[[ -x $bin ]] || cargo build --release --bin pgnindex --manifest-path "$repo/Cargo.toml" >&2
python=${PYTHON:-python3}
dir=$(mktemp -d)
[[ ${KEEP:-} == 1 ]] || trap 'rm -rf "$dir"' EXIT

"$bin" import --quiet --parquet "$dir/lake" --shard 1 "$1"
"$bin" import --quiet --parquet "$dir/lake" --shard 2 "$2"
"$bin" import --quiet --db "$dir/both.db" "$1" "$2"

"$python" - "$repo/docs/scale.md" "$dir/lake" "$dir/both.db" <<'PY'
import decimal, re, sqlite3, sys, time
import duckdb
from pyspark.sql import SparkSession

doc, lake, db = sys.argv[1:]
text = open(doc, encoding="utf-8").read()
section = text.split("## The same queries in Spark SQL", 1)[1]
block = section.split("```sql\n", 1)[1].split("```", 1)[0].replace("'lake/", f"'{lake}/")
statements = [s.strip() for s in block.split(";\n") if s.strip()]

def duck_sql(sql):
    """The Spark statement in DuckDB's dialect."""
    sql = re.sub(r"CREATE TEMPORARY VIEW (\w+) +USING parquet OPTIONS \(path '([^']*)'\)",
                 r"CREATE VIEW \1 AS SELECT * FROM read_parquet('\2/*.parquet')", sql)
    sql = re.sub(r"shiftright\((\w+), (\d+)\)", r"(\1 >> \2)", sql)
    return sql.replace(" div ", " // ")

def normal(rows):
    return sorted(tuple(round(float(v), 6) if isinstance(v, (float, decimal.Decimal)) else v
                        for v in row) for row in rows)

spark = SparkSession.builder.master("local[2]").appName("pgnindex-lake").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
print(f"Spark {spark.version}, DuckDB {duckdb.__version__}")
duck = duckdb.connect()
failed = 0
for sql in statements:
    name = sql.splitlines()[0] if not sql.startswith("--") else sql.splitlines()[0][3:]
    body = "\n".join(l for l in sql.splitlines() if not l.startswith("--"))
    started = time.time()
    got = spark.sql(body).collect()
    seconds = time.time() - started
    want = duck.execute(duck_sql(body)).fetchall()
    if body.startswith("CREATE"):
        print(f"ran   {name}")
        continue
    same = normal([tuple(r) for r in got]) == normal(want)
    failed += not same
    print(f"{'equal' if same else 'DIFFERENT'} {name}: {len(got)} rows in {seconds:.1f} s")
    if not same:
        print(f"  Spark  {normal([tuple(r) for r in got])[:3]}\n  DuckDB {normal(want)[:3]}")
one = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
counts = {
    "games": one.execute("SELECT count(*) FROM games").fetchone()[0],
    "unique_games": spark.sql("SELECT count(*) FROM unique_games").collect()[0][0],
    "games in the lake": spark.sql("SELECT count(*) FROM games").collect()[0][0],
}
same = counts["games"] == counts["unique_games"]
failed += not same
print(f"{'equal' if same else 'DIFFERENT'} games: {counts}")
spark.stop()
print(f"{failed} failed")
sys.exit(1 if failed else 0)
PY
