#!/usr/bin/env bash
# Times pgnindex's import against SCID's (Debian package `scid`, its
# `tkscid` interpreter running benches/scid-import.tcl), alternated in the
# same minutes, on one input, into fresh databases:
#   - pgnindex with the full position index;
#   - pgnindex --no-positions;
#   - SCID (no position index; it keeps every game it reads).
# Both sides keep duplicates. Prints each run (wall, user, sys seconds,
# peak RSS) and the database sizes.
#
#   benches/bench-vs-scid.sh INPUT [ROUNDS]
#
# DB_DIR (default: a temporary directory) holds the databases; they are
# removed at the end unless KEEP=1. BEFORE=BINARY times another pgnindex
# build too (a release build of an earlier commit), in the same rounds.
# Each round ends with the ratios of the pgnindex times to SCID's.
set -euo pipefail

[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 INPUT [ROUNDS]" >&2; exit 2; }
input=$1
rounds=${2:-3}
[[ -f $input ]] || { echo "$0: not a file: $input" >&2; exit 2; }
tkscid=${TKSCID:-$(command -v tkscid || echo /usr/games/tkscid)}
[[ -x $tkscid ]] || { echo "$0: tkscid not found (apt install scid)" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cargo build --release --bin pgnindex --manifest-path "$repo/Cargo.toml" >&2
bin=${CARGO_TARGET_DIR:-$repo/target}/release/pgnindex

dir=${DB_DIR:-$(mktemp -d)}
mkdir -p "$dir"
[[ ${KEEP:-0} == 1 ]] || trap 'rm -f -- "$dir"/vs-*' EXIT
cat -- "$input" >/dev/null
echo "input: $input, $(stat -c %s -- "$input") bytes; load: $(cut -d' ' -f1-3 /proc/loadavg)"

before=${BEFORE:-}
[[ -z $before || -x $before ]] || { echo "$0: BEFORE is not an executable: $before" >&2; exit 2; }

# timed NAME COMMAND...: runs it under GNU time, prints the figures and
# keeps the wall time in walls[NAME].
declare -A walls
timed() {
    local name=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" >"$dir/out" 2>&1
    read -r wall user sys rss <"$dir/time"
    walls[$name]=$wall
    echo "$name: wall $wall s, user $user s, sys $sys s, peak RSS $((rss / 1024)) MiB"
}

# pgnindex_pair LABEL BINARY: the full import and the --no-positions one.
pgnindex_pair() {
    local label=$1 binary=$2
    rm -f -- "$dir/vs-$label"-full.db* "$dir/vs-$label"-nopos.db*
    timed "$label full" "$binary" import --quiet --keep-duplicates \
        --db "$dir/vs-$label-full.db" "$input"
    timed "$label --no-positions" "$binary" import --quiet --keep-duplicates --no-positions \
        --db "$dir/vs-$label-nopos.db" "$input"
}

for round in $(seq "$rounds"); do
    echo "== round $round"
    labels=(pgnindex)
    pgnindex_pair pgnindex "$bin"
    if [[ -n $before ]]; then
        labels+=(before)
        pgnindex_pair before "$before"
    fi
    timed "scid" "$tkscid" "$repo/benches/scid-import.tcl" "$dir/vs-scid" "$input"
    tail -n 1 "$dir/out"
    for label in "${labels[@]}"; do
        awk -v l="$label" -v f="${walls[$label full]}" -v n="${walls[$label --no-positions]}" \
            -v s="${walls[scid]}" 'BEGIN { printf "%s / scid: full %.2f, --no-positions %.2f\n", l, f / s, n / s }'
    done
done
scid_bytes=$(cat "$dir"/vs-scid.si4 "$dir"/vs-scid.sg4 "$dir"/vs-scid.sn4 | wc -c)
echo "sizes: pgnindex full $(stat -c %s "$dir/vs-pgnindex-full.db") B," \
    "--no-positions $(stat -c %s "$dir/vs-pgnindex-nopos.db") B, scid $scid_bytes B"
