"""Where games leave a repertoire, computed with python-chess.

Usage: repertoire_reference.py REPERTOIRE.pgn GAMES.pgn

The repertoire is every line of REPERTOIRE.pgn, mainlines and variations:
for each position (chess.polyglot.zobrist_hash), the moves its lines play
there. A game leaves it at the first move played from such a position that
is not among them; it stays in when it ends, or reaches a position where
the lines stop (after having met them). Prints, as JSON, one object per
game of GAMES.pgn: {"ply": 1-based ply or null, "move": SAN or null}.
"""

import json
import sys

import chess
import chess.pgn
import chess.polyglot


def lines(node, board, moves):
    for child in node.variations:
        key = chess.polyglot.zobrist_hash(board)
        moves.setdefault(key, set()).add(child.move)
        board.push(child.move)
        lines(child, board, moves)
        board.pop()


def main():
    moves = {}
    with open(sys.argv[1], encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            lines(game, game.board(), moves)
    out = []
    with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            found = {"ply": None, "move": None}
            inside = False
            for ply, move in enumerate(game.mainline_moves()):
                known = moves.get(chess.polyglot.zobrist_hash(board), set())
                if not known:
                    if inside:
                        break
                else:
                    inside = True
                if known and move not in known:
                    found = {"ply": ply + 1, "move": board.san(move)}
                    break
                board.push(move)
            out.append(found)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
