#!/usr/bin/env bash
# Builds one benchmark input per kind of real file of the shared corpus
# (lichess, chesscom, otb, engine, tcec), so that a reader can be timed on
# each kind apart: online blitz with clock comments, daily and live games,
# over-the-board collections, engine matches, and long TCEC games with
# engine comments. Each kind's .pgn files are appended whole in path order,
# pass after pass, until the output reaches MB megabytes:
#   OUTDIR/lichess.pgn OUTDIR/chesscom.pgn OUTDIR/otb.pgn
#   OUTDIR/engine.pgn OUTDIR/tcec.pgn
#
#   benches/bench-kinds.sh OUTDIR [MB]        (MB defaults to 150)
#
# MB = 10^6 bytes, as `pgnindex check` prints; each output overshoots it by
# less than one corpus file. CORPUS overrides the corpus directory
# (default: ../shared/corpus/games from the repository root); the script
# fails before writing anything if a kind's directory is missing or holds
# no .pgn file. OUTDIR must lie outside the repository: the data is never
# committed. Each file is followed by a blank line, so that the last game
# of a file never runs into the tags of the next one. Later passes repeat
# the first (import them with --keep-duplicates). Prints each output's
# size and game count (`grep -c '^\[Event '`).
set -euo pipefail

usage() {
    echo "usage: $0 OUTDIR [MB]" >&2
    exit 2
}
[[ $# -ge 1 && $# -le 2 ]] || usage
outdir=$1
mb=${2:-150}
[[ $mb =~ ^[1-9][0-9]*$ ]] || { echo "$0: MB must be a positive integer" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
corpus=${CORPUS:-$repo/../shared/corpus/games}
kinds=(lichess chesscom otb engine tcec)

# Every kind must be there before anything is written.
for kind in "${kinds[@]}"; do
    [[ -d $corpus/$kind ]] || { echo "$0: corpus directory not found: $corpus/$kind" >&2; exit 2; }
done
corpus=$(cd "$corpus" && pwd -P)

# Refuse an OUTDIR inside the repository (symbolic links resolved).
out_abs=$(realpath -m -- "$outdir")
case "$out_abs/" in
    "$repo"/*)
        echo "$0: refusing to write into $out_abs, inside the repository $repo" >&2
        exit 2
        ;;
esac

# files_of KIND: fills `files` with the kind's .pgn files (any case of the
# extension), in byte order of their paths.
files_of() {
    files=()
    local f
    while IFS= read -r -d '' f; do
        files+=("$f")
    done < <(find "$corpus/$1" -type f -iname '*.pgn' -print0 | LC_ALL=C sort -z)
    [[ ${#files[@]} -gt 0 ]] || { echo "$0: no .pgn files below $corpus/$1" >&2; exit 2; }
}
for kind in "${kinds[@]}"; do
    files_of "$kind"
done

mkdir -p -- "$out_abs"
target=$((mb * 1000 * 1000))
tmp=
trap '[[ -z $tmp ]] || rm -f -- "$tmp"' EXIT
echo "corpus: $corpus, target: $mb MB ($target bytes) per kind"
for kind in "${kinds[@]}"; do
    files_of "$kind"
    # The bytes each file adds, with its separator: one line end after a
    # file that ends with one (a blank line follows), two after one that
    # does not.
    sizes=()
    seps=()
    for f in "${files[@]}"; do
        if [[ -s $f && $(tail -c 1 -- "$f" | od -An -tx1) != *0a* ]]; then
            seps+=($'\n\n')
        else
            seps+=($'\n')
        fi
        sizes+=("$(($(stat -c %s -- "$f") + ${#seps[-1]}))")
    done

    out="$out_abs/$kind.pgn"
    tmp="$out.tmp.$$"
    : >"$tmp"
    written=0
    passes=0
    while ((written < target)); do
        passes=$((passes + 1))
        for i in "${!files[@]}"; do
            cat -- "${files[$i]}" >>"$tmp"
            printf '%s' "${seps[$i]}" >>"$tmp"
            written=$((written + sizes[i]))
            ((written < target)) || break
        done
    done
    mv -f -- "$tmp" "$out"
    tmp=

    bytes=$(stat -c %s -- "$out")
    games=$(LC_ALL=C grep -c '^\[Event ' -- "$out" || true)
    awk -v out="$out" -v g="$games" -v b="$bytes" -v n="${#files[@]}" -v p="$passes" 'BEGIN {
        printf "%s: %d bytes (%.1f MB), %d games, %d files, %d passes\n", out, b, b / 1e6, g, n, p
    }'
done
