#!/usr/bin/env bash
# Compares the answers of two pgnindex builds, byte for byte: each build
# answers a fixed set of `find` and `explore` queries (positions by FEN and
# by moves, tree and deep plies, a rare position, filters, material and
# patterns, JSON) on its own database of the same input, and the outputs
# are diffed. For a change to the import: build both databases from the
# same PGN with each build, then
#
#   benches/compare-answers.sh BIN_A DB_A BIN_B DB_B [OUT_DIR]
#
# Exits 0 when every answer is the same; prints the differing files else.
set -euo pipefail

[[ $# -ge 4 && $# -le 5 ]] || { echo "usage: $0 BIN_A DB_A BIN_B DB_B [OUT_DIR]" >&2; exit 2; }
out=${5:-$(mktemp -d)}

# answers BIN DB DIR: one file per query, its output and exit status.
answers() {
    local bin=$1 db=$2 dir=$3
    mkdir -p "$dir"
    q() {
        local name=$1
        shift
        local status=0
        "$bin" "$@" --db "$db" >"$dir/$name.txt" 2>&1 || status=$?
        echo "exit $status" >>"$dir/$name.txt"
    }
    # A position few games reach: the middle game's position after 30 plies.
    local rare
    rare=$("$bin" sql --db "$db" "SELECT fen_at(id, 30) FROM games WHERE id >= \
        (SELECT max(id) / 2 FROM games) AND ply_count > 40 LIMIT 1" --format csv | tail -1)
    echo "$rare" >"$dir/rare-fen.txt"
    local ruy="1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6"
    q find-rare find --fen "$rare"
    q find-rare-count find --fen "$rare" --count
    q explore-rare explore --fen "$rare"
    q find-e4-count find --moves "1. e4" --count
    q find-e4 find --moves "1. e4"
    q explore-start explore
    q explore-e4c5 explore --moves "1. e4 c5"
    q explore-e4-2500 explore --moves "1. e4" --min-elo 2500
    q explore-qgd explore --moves "1. d4 Nf6 2. c4 e6"
    q explore-ruy8 explore --moves "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6"
    q explore-ruy14 explore --moves "$ruy"
    q find-ruy14-count find --moves "$ruy" --count
    q find-ruy14 find --moves "$ruy"
    q find-player find --player carlsen --limit 20
    q find-e4e5-2400 find --moves "1. e4 e5" --min-elo 2400 --limit 50
    q find-material find --material KRP-KR --count
    q explore-material explore --material KQ-KRR --either-color
    q find-pattern find --pattern "Nd5 pd6" --count
    q explore-najdorf-json explore --format json \
        --moves "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6"
}

answers "$1" "$2" "$out/a"
answers "$3" "$4" "$out/b"
if diff -rq "$out/a" "$out/b"; then
    echo "$(ls "$out/a" | wc -l) answers, the same bytes ($out)"
else
    echo "answers differ: diff -r $out/a $out/b" >&2
    exit 1
fi
