#!/usr/bin/env bash
# Times `pgnindex book` against `polyglot make-book` (Debian package
# `polyglot`) on the same games, alternated in the same minutes, and checks
# that the two books hold the same entries. polyglot reads no FEN setup,
# so the games with a FEN or SetUp tag are left out of INPUT first; the
# rest is imported once (keeping duplicates).
#
#   benches/bench-vs-polyglot.sh INPUT [ROUNDS] [MAX_PLY]
#
# ROUNDS defaults to 3, MAX_PLY to 16. DIR (default: a temporary
# directory) holds the filtered PGN, the database and the books; removed
# at the end unless KEEP=1.
set -euo pipefail

[[ $# -ge 1 && $# -le 3 ]] || { echo "usage: $0 INPUT [ROUNDS] [MAX_PLY]" >&2; exit 2; }
input=$1
rounds=${2:-3}
max_ply=${3:-16}
[[ -f $input ]] || { echo "$0: not a file: $input" >&2; exit 2; }
polyglot=${POLYGLOT:-$(command -v polyglot || echo /usr/games/polyglot)}
[[ -x $polyglot ]] || { echo "$0: polyglot not found (apt install polyglot)" >&2; exit 2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cargo build --release --bin pgnindex --manifest-path "$repo/Cargo.toml" >&2
bin=${CARGO_TARGET_DIR:-$repo/target}/release/pgnindex

dir=${DIR:-$(mktemp -d)}
mkdir -p "$dir"
[[ ${KEEP:-0} == 1 ]] || trap 'rm -f -- "$dir"/vp-*' EXIT

# A game runs from its [Event line to the next one.
awk 'BEGIN { n = 0 }
     /^\[Event / { if (n) flush(); n = 0; setup = 0 }
     /^\[(FEN|SetUp) / { setup = 1 }
     { game[n++] = $0 }
     function flush(  i) { if (!setup) for (i = 0; i < n; i++) print game[i] }
     END { if (n) flush() }' "$input" >"$dir/vp-std.pgn"
"$bin" import --quiet --keep-duplicates --db "$dir/vp-std.db" "$dir/vp-std.pgn"
echo "games: $(grep -c '^\[Event ' "$dir/vp-std.pgn") without setups; max-ply $max_ply;" \
    "load: $(cut -d' ' -f1-3 /proc/loadavg)"

declare -A walls
timed() {
    local name=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$dir/vp-time" "$@" >"$dir/vp-out" 2>&1
    read -r wall user sys rss <"$dir/vp-time"
    walls[$name]=$wall
    echo "$name: wall $wall s, user $user s, sys $sys s, peak RSS $((rss / 1024)) MiB"
}

for round in $(seq "$rounds"); do
    echo "== round $round"
    timed pgnindex "$bin" book --db "$dir/vp-std.db" -o "$dir/vp-ours.bin" --max-ply "$max_ply"
    timed polyglot "$polyglot" make-book -pgn "$dir/vp-std.pgn" -bin "$dir/vp-theirs.bin" \
        -max-ply "$max_ply"
    awk -v a="${walls[pgnindex]}" -v b="${walls[polyglot]}" \
        'BEGIN { printf "pgnindex / polyglot: %.3f\n", a / b }'
done

# The same entries, those of one key and weight in any order.
python3 - "$dir/vp-ours.bin" "$dir/vp-theirs.bin" <<'PY'
import struct, sys
def entries(path):
    data = open(path, "rb").read()
    rows = [struct.unpack(">QHHI", data[i:i + 16]) for i in range(0, len(data), 16)]
    return sorted(rows, key=lambda e: (e[0], -e[2], e[1]))
ours, theirs = entries(sys.argv[1]), entries(sys.argv[2])
print(f"entries: pgnindex {len(ours)}, polyglot {len(theirs)};",
      "the same" if ours == theirs else "DIFFERENT")
sys.exit(0 if ours == theirs else 1)
PY
