"""Checks the answers of a running `pgnindex serve` against lichess's
published interface for its opening explorer, with the `jsonschema`
package.

The schemas below are written from what lichess's OpenAPI description
(repository lichess-org/api, doc/specs/schemas/OpeningExplorer*.yaml,
Speed.yaml, GameColor.yaml) specifies for each route: field names,
types, which fields are required and the enumerations. Objects there
allow fields beyond those listed, so they do here.

    python3 tests/serve_schema.py http://127.0.0.1:PORT < requests

reads one request target a line (`/lichess?play=e2e4`), checks the
answer of each (every ND-JSON line of `/player`), and prints `ok N`, N
the answers checked, or each failure and exits 1.
"""

import json
import sys
import urllib.request

import jsonschema

SPEED = {
    "type": "string",
    "enum": ["ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"],
}
COLOR = {"type": "string", "enum": ["white", "black"]}
NULLABLE_COLOR = {"oneOf": [COLOR, {"type": "null"}]}
OPENING = {
    "type": "object",
    "properties": {"eco": {"type": "string"}, "name": {"type": "string"}},
    "required": ["eco", "name"],
}
NULLABLE_OPENING = {"oneOf": [OPENING, {"type": "null"}]}
GAME_PLAYER = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "rating": {"type": "integer"}},
    "required": ["name", "rating"],
}
COUNT = {"type": "integer"}

LICHESS_GAME = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "winner": NULLABLE_COLOR,
        "speed": SPEED,
        "white": GAME_PLAYER,
        "black": GAME_PLAYER,
        "year": {"type": "number"},
        "month": {"type": ["string", "null"]},
    },
    "required": ["id", "winner", "white", "black", "year", "month"],
}
MASTERS_GAME = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "winner": NULLABLE_COLOR,
        "white": GAME_PLAYER,
        "black": GAME_PLAYER,
        "year": {"type": "integer"},
        "month": {"type": "string"},
    },
    "required": ["id", "winner", "white", "black", "year"],
}
PLAYER_GAME = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "winner": NULLABLE_COLOR,
        "speed": SPEED,
        "mode": {"type": "string", "enum": ["rated", "casual"]},
        "white": GAME_PLAYER,
        "black": GAME_PLAYER,
        "year": {"type": "integer"},
        "month": {"type": "string"},
    },
    "required": ["id", "winner", "speed", "mode", "white", "black", "year", "month"],
}


def listed(game):
    """A game of `topGames` or `recentGames`: the game and the move."""
    return {
        "allOf": [
            {"type": "object", "properties": {"uci": {"type": "string"}}, "required": ["uci"]},
            game,
        ]
    }


def move_row(game, ratings):
    """A row of `moves`, its rating fields `ratings`."""
    properties = {
        "uci": {"type": "string"},
        "san": {"type": "string"},
        "white": COUNT,
        "draws": COUNT,
        "black": COUNT,
        "game": {"oneOf": [game, {"type": "null"}]},
        "opening": NULLABLE_OPENING,
    }
    for name in ratings:
        properties[name] = {"type": "integer"}
    return {
        "type": "object",
        "properties": properties,
        "required": ["uci", "san", *ratings, "white", "draws", "black", "game", "opening"],
    }


HISTORY = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"month": {"type": "string"}, "white": COUNT, "draws": COUNT, "black": COUNT},
        "required": ["month", "white", "draws", "black"],
    },
}

def explorer(game, lists):
    """The answer of `/lichess` or `/masters`: the moves' games are `game`,
    `lists` the lists of games beside the top games and the history."""
    properties = {
        "opening": NULLABLE_OPENING,
        "white": COUNT,
        "draws": COUNT,
        "black": COUNT,
        "moves": {"type": "array", "items": move_row(game, ["averageRating"])},
        "topGames": {"type": "array", "items": listed(game)},
    }
    properties.update(lists)
    return {
        "type": "object",
        "properties": properties,
        "required": ["opening", "white", "draws", "black", "moves", "topGames"],
    }


LICHESS = explorer(
    LICHESS_GAME,
    {"recentGames": {"type": "array", "items": listed(LICHESS_GAME)}, "history": HISTORY},
)
MASTERS = explorer(MASTERS_GAME, {})
PLAYER = {
    "type": "object",
    "properties": {
        "opening": NULLABLE_OPENING,
        "queuePosition": {"type": "integer"},
        "white": COUNT,
        "draws": COUNT,
        "black": COUNT,
        "moves": {
            "type": "array",
            "items": move_row(PLAYER_GAME, ["averageOpponentRating", "performance"]),
        },
        "recentGames": {"type": "array", "items": listed(PLAYER_GAME)},
    },
    "required": ["opening", "queuePosition", "white", "draws", "black", "moves", "recentGames"],
}

SCHEMAS = {"/lichess": LICHESS, "/masters": MASTERS, "/player": PLAYER}


def main(url):
    checked = 0
    failures = []
    for target in sys.stdin.read().split():
        route = target.split("?")[0]
        schema = SCHEMAS[route]
        with urllib.request.urlopen(url + target) as answer:
            lines = answer.read().decode().splitlines()
        for line in lines:
            if not line.strip():
                continue
            validator = jsonschema.Draft202012Validator(schema)
            for error in validator.iter_errors(json.loads(line)):
                path = "/".join(str(p) for p in error.absolute_path)
                failures.append(f"{target}: {path}: {error.message}")
            checked += 1
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"ok {checked}")


if __name__ == "__main__":
    main(sys.argv[1])
