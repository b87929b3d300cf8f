"""A Polyglot book checked against python-chess.

Usage: book_reference.py PGN BOOK [--max-ply N] [--min-games N]
       [--min-score PERCENT] [--only-white | --only-black] [--uniform]

Replays every game of PGN with python-chess (FEN setups and Chess960
included), computes the book that `polyglot make-book`'s rules give for
those games (keys by chess.polyglot.zobrist_hash), then reads BOOK with
chess.polyglot.open_reader and checks that, for every position of the
games' counted plies, the reader finds exactly the computed moves and
weights, and that BOOK holds no other entry. Prints one line and exits 0
when they agree; lists the first differences and exits 1 otherwise.
"""

import argparse
import collections
import os
import sys

import chess
import chess.pgn
import chess.polyglot

COUNT_MAX = 16384


def poly_move(board, move):
    """The move as a Polyglot book encodes it: castling as the king taking its rook."""
    if board.is_castling(move):
        move = board._to_chess960(move)
        if not board.chess960:
            rank = chess.square_rank(move.from_square)
            rook_file = 7 if chess.square_file(move.to_square) > 4 else 0
            move = chess.Move(move.from_square, chess.square(rook_file, rank))
    promotion = (move.promotion - 1) if move.promotion else 0
    return (promotion << 12) | (move.from_square << 6) | move.to_square


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pgn")
    parser.add_argument("book")
    parser.add_argument("--max-ply", type=int, default=20)
    parser.add_argument("--min-games", type=int, default=3)
    parser.add_argument("--min-score", type=float, default=0.0)
    parser.add_argument("--only-white", action="store_true")
    parser.add_argument("--only-black", action="store_true")
    parser.add_argument("--uniform", action="store_true")
    args = parser.parse_args()

    # key -> {move: [n, sum]}, in first-seen order; key -> side to move.
    counts = collections.defaultdict(dict)
    turn = {}
    games = 0
    with open(args.pgn, encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            games += 1
            result = game.headers.get("Result", "*")
            white = {"1-0": 1, "0-1": -1}.get(result, 0)
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                if ply >= args.max_ply:
                    break
                if not move:
                    board.push(move)
                    continue
                key = chess.polyglot.zobrist_hash(board)
                turn[key] = board.turn
                mover = white if board.turn == chess.WHITE else -white
                moves = counts[key]
                tally = moves.setdefault(poly_move(board, move), [0, 0])
                tally[0] += 1
                tally[1] += mover + 1
                if tally[0] >= COUNT_MAX:
                    for t in moves.values():
                        t[0] = (t[0] + 1) // 2
                        t[1] = (t[1] + 1) // 2
                board.push(move)

    want = {}
    for key, moves in counts.items():
        if args.only_white and turn[key] != chess.WHITE:
            continue
        if args.only_black and turn[key] != chess.BLACK:
            continue
        kept = sorted(
            (raw, 1 if args.uniform else s)
            for raw, (n, s) in moves.items()
            if n >= args.min_games and s > 0 and (s / n) / 2.0 >= args.min_score / 100.0
        )
        if kept:
            want[key] = kept

    problems = []
    total = 0
    with chess.polyglot.open_reader(args.book) as reader:
        total = len(reader)
        for key, kept in want.items():
            found = sorted((e.raw_move, e.weight) for e in reader.find_all(key))
            if found != kept:
                problems.append(f"key {key:016x}: book {found}, computed {kept}")
    entries = sum(len(k) for k in want.values())
    if total != entries:
        problems.append(f"the book holds {total} entries, computed {entries}")
    if problems:
        print(f"{os.path.basename(args.book)}: {len(problems)} differences", file=sys.stderr)
        for p in problems[:10]:
            print(p, file=sys.stderr)
        sys.exit(1)
    print(f"ok: {entries} entries for {len(want)} positions from {games} games")


if __name__ == "__main__":
    main()
