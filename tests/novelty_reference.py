"""Novelties computed with python-chess, for `pgnindex novelty`.

Usage: novelty_reference.py PGN...

Replays every game of the files in order (game i is the database's id i
when they are imported alone, keeping duplicates) and prints, as JSON, one
object per game: `ply`, the 1-based ply of the first move whose position
(by chess.polyglot.zobrist_hash) no other game reached, or null; `move`,
its SAN; `games_before`, the other games that reached the position before
it; `moves_before`, {SAN: [games, white wins, draws, black wins]} of the
moves those games played at their first visit of that position.
"""

import json
import sys

import chess
import chess.pgn
import chess.polyglot


def main():
    games = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8", errors="replace") as f:
            while True:
                game = chess.pgn.read_game(f)
                if game is None:
                    break
                board = game.board()
                keys, sans, moves = [chess.polyglot.zobrist_hash(board)], [], []
                for move in game.mainline_moves():
                    sans.append(board.san(move))
                    moves.append(move)
                    board.push(move)
                    keys.append(chess.polyglot.zobrist_hash(board))
                games.append((game.headers.get("Result", "*"), keys, sans))

    # key -> {game index: first ply of the key in that game}
    where = {}
    for i, (_, keys, _) in enumerate(games):
        for ply, key in enumerate(keys):
            where.setdefault(key, {}).setdefault(i, ply)

    out = []
    for i, (_, keys, sans) in enumerate(games):
        found = {"ply": None, "move": None, "games_before": None, "moves_before": {}}
        for ply in range(1, len(keys)):
            if any(g != i for g in where.get(keys[ply], {})):
                continue
            before = keys[ply - 1]
            others = {g: p for g, p in where[before].items() if g != i}
            moves = {}
            for g, p in others.items():
                result, _, other_sans = games[g]
                if p >= len(other_sans):
                    continue
                tally = moves.setdefault(other_sans[p], [0, 0, 0, 0])
                tally[0] += 1
                column = {"1-0": 1, "1/2-1/2": 2, "0-1": 3}.get(result)
                if column:
                    tally[column] += 1
            found = {
                "ply": ply,
                "move": sans[ply - 1],
                "games_before": len(others),
                "moves_before": moves,
            }
            break
        out.append(found)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
