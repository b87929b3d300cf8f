#!/usr/bin/env bash
# Builds the big benchmark input of docs/benchmarks.md: the PGN files of
# the shared corpus, except tcec/ (few, very long engine games), appended
# whole in path order, pass after pass, until the output reaches SIZE_MB MiB.
#
#   benches/bench-input.sh OUT [SIZE_MB]      (SIZE_MB defaults to 1024)
#
# CORPUS overrides the corpus directory (default: ../shared/corpus/games
# from the repository root). OUT must lie outside the repository: the data
# is never committed. Each file is followed by a line end, so a file that
# ends without one cannot glue its last game to the next file's tags. The output overshoots SIZE_MB by less than one corpus file.
# Prints the number of games (`grep -c '^\[Event '`) and the bytes written.
# DISTINCT=1 makes each pass's games new games for dedupe (its Event tags
# get a "pass N: " prefix), so that the dedupe index grows as it does for
# a real collection of that size; without it, later passes repeat the
# first (import them with --keep-duplicates).
set -euo pipefail

usage() {
    echo "usage: $0 OUT [SIZE_MB]" >&2
    exit 2
}
[[ $# -ge 1 && $# -le 2 ]] || usage
out=$1
size_mb=${2:-1024}
[[ $size_mb =~ ^[1-9][0-9]*$ ]] || { echo "$0: SIZE_MB must be a positive integer" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
corpus=${CORPUS:-$repo/../shared/corpus/games}
[[ -d $corpus ]] || { echo "$0: corpus directory not found: $corpus" >&2; exit 2; }
corpus=$(cd "$corpus" && pwd -P)

# Refuse any OUT inside the repository (symbolic links resolved).
out_abs=$(realpath -m -- "$out")
case "$out_abs/" in
    "$repo"/*)
        echo "$0: refusing to write $out_abs inside the repository $repo" >&2
        exit 2
        ;;
esac
mkdir -p -- "$(dirname -- "$out_abs")"

files=()
while IFS= read -r -d '' f; do
    files+=("$f")
done < <(find "$corpus" -path "$corpus/tcec" -prune -o -type f -iname '*.pgn' -print0 | LC_ALL=C sort -z)
[[ ${#files[@]} -gt 0 ]] || { echo "$0: no .pgn files below $corpus (tcec/ excluded)" >&2; exit 2; }

target=$((size_mb * 1024 * 1024))
tmp="$out_abs.tmp.$$"
trap 'rm -f -- "$tmp"' EXIT
: >"$tmp"
written=0
passes=0
while ((written < target)); do
    passes=$((passes + 1))
    for f in "${files[@]}"; do
        if [[ -n ${DISTINCT:-} ]] && ((passes > 1)); then
            LC_ALL=C sed "s/^\[Event \"/[Event \"pass $passes: /" -- "$f" >>"$tmp"
        else
            cat -- "$f" >>"$tmp"
        fi
        printf '\n' >>"$tmp"
        written=$(stat -c %s -- "$tmp")
        ((written < target)) || break
    done
done
mv -f -- "$tmp" "$out_abs"
trap - EXIT

bytes=$(stat -c %s -- "$out_abs")
games=$(LC_ALL=C grep -c '^\[Event ' -- "$out_abs")
echo "corpus: $corpus (${#files[@]} files, tcec/ excluded), passes: $passes"
echo "$out_abs: $games games, $bytes bytes ($((bytes / 1024 / 1024)) MiB)"
