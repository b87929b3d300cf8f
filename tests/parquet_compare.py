#!/usr/bin/env python3
"""Runs the same queries on pgnindex databases (SQLite) and on Parquet files
(DuckDB) and compares the answers row for row.

    parquet_compare.py --db DB --parquet DIR [--movetexts JSON] [--shards] [--unique SQL]

DuckDB reads the files of the lake DIR, `DIR/NAME/*.parquet`, as the table
NAME. `--shards`: DIR holds shards exported from several databases, DB is
one database of all their inputs; only the answers that name no game id are
compared (the ids differ), and the shards' ids must be distinct.
`--unique SQL`: a file of statements that make the views `unique_games`,
`unique_plies`, `unique_tags` and `unique_positions` (one game per dedupe
key), run after the tables' views; the queries then read those views in
place of the tables (shards may then hold the same games). `--movetexts` is
a JSON object from game id to the movetext `pgnindex sql`'s `movetexts` view
shows, for the games that store none. Prints one line per query; exits 1 on
the first difference.
"""

import argparse
import decimal
import json
import re
import sqlite3
import sys

import chess
import chess.polyglot
import duckdb

TABLES = ["games", "plies", "tags", "positions", "sources"]

# The columns of `sources` in the files.
SOURCES = (
    "id, path, size, mtime, fingerprint, games, duplicates, errors, positions, "
    "positions_indexed, max_ply"
)


def signed(key):
    return key - (1 << 64) if key >= 1 << 63 else key


def normal(rows):
    """Rows as tuples of comparable values (DuckDB's DECIMALs as floats)."""
    out = []
    for row in rows:
        out.append(
            tuple(
                float(v) if isinstance(v, decimal.Decimal) else (round(v, 9) if isinstance(v, float) else v)
                for v in row
            )
        )
    return out


def score(colour):
    win = "'1-0'" if colour == "white" else "'0-1'"
    loss = "'0-1'" if colour == "white" else "'1-0'"
    return (
        f"CASE result WHEN {win} THEN 1.0e0 WHEN {loss} THEN 0.0e0 "
        "WHEN '1/2-1/2' THEN 0.5e0 END"
    )


def keys(db):
    """The keys the position queries ask for: the start, a reference
    position computed by python-chess, the most frequent keys and a few
    keys reached once."""
    board = chess.Board()
    for san in ["e4", "c5", "Nf3"]:
        board.push_san(san)
    found = [signed(chess.polyglot.zobrist_hash(chess.Board())), signed(chess.polyglot.zobrist_hash(board))]
    found += [r[0] for r in db.execute("SELECT hash FROM positions GROUP BY hash ORDER BY count(*) DESC, hash LIMIT 5")]
    found += [
        r[0]
        for r in db.execute("SELECT hash FROM positions GROUP BY hash HAVING count(*) = 1 ORDER BY hash LIMIT 5")
    ]
    return list(dict.fromkeys(found))


def queries(db, shards):
    """(name, sql, params, names_ids): the same SQL text for both engines."""
    qs = []
    for table in TABLES:
        qs.append((f"{table}: rows", f"SELECT count(*) FROM {table}", [], False))
    if not shards:
        qs.append(("games: every column but movetext", None, [], True))
        # The columns the database's view has (an older schema has fewer).
        plies = ", ".join(r[1] for r in db.execute("PRAGMA table_info(plies)"))
        qs.append(("plies: every row", f"SELECT {plies} FROM plies ORDER BY game_id, ply", [], True))
        qs.append(("tags: every row", "SELECT * FROM tags ORDER BY game_id, ord", [], True))
        qs.append(("sources: every row", f"SELECT {SOURCES} FROM sources ORDER BY id", [], True))
        qs.append(
            (
                "positions: every row",
                "SELECT hash, game_id, ply, next_move, fen FROM positions ORDER BY hash, game_id, ply",
                [],
                True,
            )
        )
    qs.append(
        (
            "games: every source",
            "SELECT count(*) FROM games AS g JOIN sources AS s ON s.id = g.source_id",
            [],
            False,
        )
    )
    for key in keys(db):
        qs.append(
            (
                f"position hits {key}",
                "SELECT game_id, ply, next_move FROM positions WHERE hash = ? ORDER BY game_id, ply",
                [key],
                True,
            )
        )
        qs.append(
            (
                f"position games {key}",
                "SELECT g.white, g.black, g.date, g.round, g.result, count(*) FROM positions AS p "
                "JOIN games AS g ON g.id = p.game_id WHERE p.hash = ? "
                "GROUP BY 1, 2, 3, 4, 5 ORDER BY 1 NULLS FIRST, 2 NULLS FIRST, 3 NULLS FIRST, "
                "4 NULLS FIRST, 5 NULLS FIRST",
                [key],
                False,
            )
        )
        qs.append(
            (
                f"explorer {key}",
                # The explorer's table: each game's first visit, the move
                # played from there, and its games, White wins, draws and
                # Black wins.
                "WITH first AS (SELECT game_id, min(ply) AS ply FROM positions WHERE hash = ? "
                "GROUP BY game_id) "
                "SELECT p.next_move, count(*), "
                "sum(CASE WHEN g.result = '1-0' THEN 1 ELSE 0 END), "
                "sum(CASE WHEN g.result = '1/2-1/2' THEN 1 ELSE 0 END), "
                "sum(CASE WHEN g.result = '0-1' THEN 1 ELSE 0 END), max(g.date) "
                "FROM first AS f JOIN positions AS p ON p.game_id = f.game_id AND p.ply = f.ply "
                "JOIN games AS g ON g.id = f.game_id WHERE p.hash = ? "
                "GROUP BY p.next_move ORDER BY p.next_move NULLS FIRST",
                [key, key],
                False,
            )
        )
    qs.append(
        (
            "player scores by year",
            f"SELECT name, year, count(*), sum(score) FROM ("
            f"SELECT white AS name, year, {score('white')} AS score FROM games "
            f"UNION ALL SELECT black, year, {score('black')} FROM games) "
            "GROUP BY name, year ORDER BY name NULLS FIRST, year NULLS FIRST",
            [],
            False,
        )
    )
    qs.append(
        (
            "tag names",
            "SELECT name, count(*), count(DISTINCT value) FROM tags GROUP BY name ORDER BY name",
            [],
            False,
        )
    )
    qs.append(
        (
            "tag lookup",
            "SELECT g.white, g.black, t.value FROM tags AS t JOIN games AS g ON g.id = t.game_id "
            "WHERE t.name IN ('UTCDate', 'Annotator', 'TimeControl', 'Variant', 'FEN') "
            "ORDER BY 1 NULLS FIRST, 2 NULLS FIRST, 3",
            [],
            False,
        )
    )
    qs.append(
        (
            "clock usage by speed",
            "SELECT g.speed, count(p.clock), round(avg(p.clock), 3), min(p.clock), max(p.clock), "
            "count(p.eval), count(p.mate), count(p.nags), count(p.comment) "
            "FROM plies AS p JOIN games AS g ON g.id = p.game_id GROUP BY g.speed ORDER BY 1 NULLS FIRST",
            [],
            False,
        )
    )
    return qs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--parquet", required=True)
    ap.add_argument("--movetexts")
    ap.add_argument("--shards", action="store_true")
    ap.add_argument("--unique")
    args = ap.parse_args()

    db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    duck = duckdb.connect()
    for table in TABLES:
        duck.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{args.parquet}/{table}/*.parquet')")
    unique = lambda sql: sql
    if args.unique:
        with open(args.unique, encoding="utf-8") as f:
            duck.execute(f.read())
        # Each table the queries read becomes its view of one game per key.
        unique = lambda sql: re.sub(r"\b(FROM|JOIN)\s+(games|plies|tags|positions)\b", r"\1 unique_\2", sql)
    games_columns = [r[1] for r in db.execute("PRAGMA table_info(games)") if r[1] != "movetext"]

    failed = 0
    compared = 0
    for name, sql, params, names_ids in queries(db, args.shards):
        if args.shards and names_ids:
            continue
        if sql is None:
            sql = f"SELECT {', '.join(games_columns)} FROM games ORDER BY id"
        expected = normal(db.execute(sql, params).fetchall())
        got = normal(duck.execute(unique(sql), params).fetchall())
        compared += 1
        if expected != got:
            failed += 1
            print(f"DIFFERENT {name}: {len(expected)} rows in SQLite, {len(got)} in DuckDB")
            for e, g in zip(expected, got):
                if e != g:
                    print(f"  first difference: SQLite {e!r} DuckDB {g!r}")
                    break
        else:
            print(f"equal {name}: {len(got)} rows")

    if args.movetexts:
        with open(args.movetexts, encoding="utf-8") as f:
            movetexts = {int(k): v for k, v in json.load(f).items()}
        got = dict(duck.execute("SELECT id, movetext FROM games").fetchall())
        compared += 1
        if got != movetexts:
            failed += 1
            bad = [k for k in sorted(set(got) | set(movetexts)) if got.get(k) != movetexts.get(k)]
            print(f"DIFFERENT movetexts: {len(bad)} games, first {bad[0]}")
        else:
            print(f"equal movetexts: {len(got)} games")

    # Each shard's positions files, read in name and row order, are sorted
    # by hash.
    unsorted = duck.execute(
        "SELECT count(*) FROM (SELECT hash < lag(hash) OVER ("
        "PARTITION BY regexp_extract(filename, '/(s[0-9]+)-[0-9]+[.]parquet$', 1) "
        "ORDER BY filename, file_row_number) AS down "
        f"FROM read_parquet('{args.parquet}/positions/*.parquet', filename = true, file_row_number = true)) "
        "WHERE down"
    ).fetchone()[0]
    compared += 1
    if unsorted:
        failed += 1
        print(f"DIFFERENT positions order: {unsorted} rows below the row before them")
    else:
        print("equal positions order: sorted by hash in every shard")

    if args.shards:
        ids = duck.execute("SELECT count(*), count(DISTINCT id) FROM games").fetchone()
        compared += 1
        if ids[0] != ids[1]:
            failed += 1
            print(f"DIFFERENT game ids: {ids[0]} games, {ids[1]} ids")
        else:
            print(f"equal game ids: {ids[0]} games, as many ids")

    print(f"{compared - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
