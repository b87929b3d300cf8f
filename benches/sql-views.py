#!/usr/bin/env python3
"""Times SQL over the views of a database of real games, in Debian's
`sqlite3` shell and through `pgnindex sql`, against the same queries on
plain tables holding the same rows (docs/benchmarks.md, SQL over the views).

    benches/sql-views.py DIR [--runs N] [--mb MB] [--timeout S]

DIR (outside the repository) receives the lichess and OTB inputs made by
benches/bench-kinds.sh (MB megabytes each, default 120: about 275,000 games
in all), the database DIR/views.db (`import --keep-duplicates`: the inputs
repeat the corpus) and DIR/plain.db, whose tables `games`, `plies`,
`players` and `tags` are `CREATE TABLE ... AS SELECT *` of the views. Each
is made only if missing; the release binary is built first.

Queries: a `plies` scan reading clock, emt and eval; the `players` view; a
`LIKE` on names; counts by White; tag names; the join shapes over
`positions` (a GROUP BY game_id subquery joined to games, IN, EXISTS, a
list of keys); and the 15 queries of the guide's SQL cookbook. Each runs
RUNS times (default 3), the views, the plain tables and `pgnindex sql` in
turn; a query over the time limit (default 300 s) counts as the limit.
Prints one Markdown row per query: the median seconds of each, the rows a
second of the views where the query reads `plies` whole, and the ratio
views / plain.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, **kw):
    return subprocess.run(args, check=True, **kw)


def cookbook():
    """(title, sql) of every ```sql block under the guide's cookbook."""
    guide = open(os.path.join(REPO, "docs", "guide.md"), encoding="utf-8").read()
    section = guide[guide.index("\n## SQL cookbook") + 1:]
    end = section.find("\n## ", 3)
    section = section if end < 0 else section[:end]
    queries, title = [], None
    for m in re.finditer(r"^### ([^\n]+)$|^```sql\n(.*?)^```", section, flags=re.M | re.S):
        if m.group(1) is not None:
            title = m.group(1)
        else:
            queries.append((title, m.group(2)))
    return queries


def timed(args, sql, timeout):
    start = time.perf_counter()
    try:
        out = subprocess.run(args + [sql], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return timeout, None
    if out.returncode != 0:
        sys.exit(f"{args[0]} failed on {sql[:60]!r}: {out.stderr.strip()}")
    return time.perf_counter() - start, out.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mb", type=int, default=120)
    parser.add_argument("--timeout", type=float, default=300)
    opts = parser.parse_args()
    os.makedirs(opts.dir, exist_ok=True)
    run(["cargo", "build", "--release", "--quiet"], cwd=REPO)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")
    pgnindex = os.path.join(target, "release", "pgnindex")
    inputs = [os.path.join(opts.dir, f"{kind}.pgn") for kind in ("lichess", "otb")]
    if not all(os.path.exists(p) for p in inputs):
        run([os.path.join(REPO, "benches", "bench-kinds.sh"), opts.dir, str(opts.mb)])
    views = os.path.join(opts.dir, "views.db")
    if not os.path.exists(views):
        run([pgnindex, "import", "--quiet", "--keep-duplicates", "--db", views] + inputs)
    plain = os.path.join(opts.dir, "plain.db")
    if not os.path.exists(plain):
        copy = "".join(
            f"CREATE TABLE plain.{t} AS SELECT * FROM main.{t};"
            for t in ("games", "plies", "players", "tags")
        )
        run(["sqlite3", views, f"ATTACH '{plain}' AS plain; {copy}"])
    shell = lambda db: ["sqlite3", "-bail", db]
    sql = [pgnindex, "sql", "--db", views]
    key = subprocess.run(
        shell(views) + ["SELECT hash FROM positions WHERE game_id = 1 AND ply = 2"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    plies = int(subprocess.run(shell(plain) + ["SELECT count(*) FROM plies"],
                               capture_output=True, text=True, check=True).stdout)
    queries = [
        ("plies: clock, emt, eval", "SELECT count(clock), count(emt), count(eval) FROM plies", True),
        ("plies: clocks only", "SELECT count(*) FROM plies WHERE clock IS NOT NULL", True),
        ("players: top 3", "SELECT name, games FROM players ORDER BY games DESC LIMIT 3", True),
        ("games: LIKE on names", "SELECT count(*) FROM games WHERE white LIKE '%carl%'", True),
        ("games: counts by White", "SELECT white, count(*) FROM games GROUP BY white ORDER BY 2 DESC LIMIT 3", True),
        ("tags: names", "SELECT name, count(*) FROM tags GROUP BY name ORDER BY 2 DESC LIMIT 5", True),
        ("positions: GROUP BY game_id joined",
         "SELECT g.id, n FROM games g LEFT JOIN (SELECT game_id, count(*) n FROM positions "
         "GROUP BY game_id) p ON p.game_id = g.id LIMIT 5", False),
        ("positions: IN", f"SELECT count(*) FROM games WHERE id IN "
         f"(SELECT game_id FROM positions WHERE hash = {key})", False),
        ("positions: EXISTS", f"SELECT count(*) FROM games g WHERE EXISTS "
         f"(SELECT 1 FROM positions p WHERE p.hash = {key} AND p.game_id = g.id)", False),
        ("positions: list of keys", f"WITH k(hash) AS (VALUES ({key}), (1), (2)) "
         f"SELECT count(*) FROM k JOIN positions p ON p.hash = k.hash", False),
    ] + [(f"cookbook {t.split('.')[0]}", q, False) for t, q in cookbook()]
    print(f"{plies:,} plies; RUNS={opts.runs}; median s")
    print("| query | sqlite3, views | pgnindex sql | sqlite3, plain tables | views / plain |")
    print("|---|---|---|---|---|")
    for name, query, with_plain in queries:
        times = {"views": [], "sql": [], "plain": []}
        for _ in range(opts.runs):
            times["views"].append(timed(shell(views), query, opts.timeout)[0])
            times["sql"].append(timed(sql, query, opts.timeout)[0])
            if with_plain:
                times["plain"].append(timed(shell(plain), query, opts.timeout)[0])
        med = {k: statistics.median(v) for k, v in times.items() if v}
        rate = f" ({plies / med['views'] / 1e6:.2f} M rows/s)" if name.startswith("plies") else ""
        plain_s = f"{med['plain']:.2f}" if "plain" in med else ""
        ratio = f"{med['views'] / med['plain']:.1f}×" if "plain" in med else ""
        print(f"| {name} | {med['views']:.2f}{rate} | {med['sql']:.2f} | {plain_s} | {ratio} |",
              flush=True)


if __name__ == "__main__":
    main()
