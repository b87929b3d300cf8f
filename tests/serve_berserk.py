"""Calls a running `pgnindex serve` through berserk, the Python client of
lichess's API, and prints one JSON line per call: the call, what berserk
returned, and the `pgnindex explore` arguments that ask the same question
(tests/it/serve.rs compares the counts; the masters calls with the masters
database the server was given).

    python3 tests/serve_berserk.py http://127.0.0.1:PORT
"""

import json
import sys

import berserk

E4_FEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def main(url):
    explorer = berserk.Client(explorer_url=url).opening_explorer

    def emit(call, answer, explore):
        print(json.dumps({"call": call, "answer": answer, "explore": explore}))

    emit(
        "get_lichess_games",
        explorer.get_lichess_games(
            play=["e2e4", "c7c5"],
            speeds=["bullet", "blitz"],
            ratings=["1600", "1800", "2000", "2200", "2500"],
            since="2017-01",
            moves=100,
        ),
        ["--moves", "e2e4 c7c5", "--speed", "bullet,blitz",
         "--rating-group", "1600,1800,2000,2200,2500", "--since", "2017-01"],
    )
    # berserk sends `history=True`, as Python writes a boolean.
    emit(
        "get_lichess_games",
        explorer.get_lichess_games(play=["e2e4"], moves=100, history=True),
        ["--moves", "e2e4"],
    )
    emit(
        "get_lichess_games",
        explorer.get_lichess_games(position=E4_FEN, moves=100),
        ["--fen", E4_FEN],
    )
    emit(
        "get_masters_games",
        explorer.get_masters_games(play=["d2d4", "g8f6"], since=1990, until=2030, moves=100),
        ["--moves", "d2d4 g8f6", "--since", "1990", "--until", "2030"],
    )
    emit(
        "get_player_games",
        explorer.get_player_games("dannythedonkey", "black", play=["e2e4"], moves=100),
        ["--moves", "e2e4", "--black", "dannythedonkey", "--exact-names"],
    )
    # lichess's defaults: every move of the start position.
    emit(
        "get_player_games",
        explorer.get_player_games("dannythedonkey", "white"),
        ["--white", "dannythedonkey", "--exact-names"],
    )
    emit("get_otb_master_game", explorer.get_otb_master_game("3"), [])


if __name__ == "__main__":
    main(sys.argv[1])
