#!/usr/bin/env bash
# Times `pgnindex check` against a peer built on the pgn-reader and
# shakmaty crates, alternated in the same minutes, on one input (see
# benches/bench-input.sh and benches/bench-kinds.sh). The peer maps the
# input, reads it with pgn-reader in chunks of about 1 MB cut at `[Event `
# lines, on rayon threads, and replays each game's mainline SAN moves on
# shakmaty with legality checks and the Polyglot key of each position
# (shakmaty's incremental Zobrist update, as `check` keys each position);
# it prints `games G errors E bytes B seconds S`.
#
#   benches/bench-vs-pgn-reader.sh INPUT [ROUNDS]      (ROUNDS defaults to 5)
#
# THREADS (default 2) is the threads each side reads on.
# PEER (required) is the path of that peer binary, `pgnreader-check`. Its
# crates are GPL-3, so it lives in a throw-away crate outside the
# repository and never enters it. BIN is the pgnindex binary; without it
# the script builds target/release/pgnindex. One untimed read puts INPUT in
# the page cache first. Each round runs both sides once, the first side
# swapped from one round to the next, each under GNU time; it prints wall,
# user and sys seconds and peak RSS (which counts the pages of the
# memory-mapped input) per run, the summary lines of the first round, and
# at the end the median wall time of each side and the ratio peer /
# pgnindex (above 1: pgnindex is faster). Fails if a side cannot read
# INPUT or the two count different numbers of games.
set -euo pipefail

[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 INPUT [ROUNDS]" >&2; exit 2; }
input=$1
rounds=${2:-5}
threads=${THREADS:-2}
[[ $threads =~ ^[1-9][0-9]*$ ]] || { echo "$0: THREADS must be a positive integer" >&2; exit 2; }
[[ -f $input ]] || { echo "$0: not a file: $input" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "$0: ROUNDS must be a positive integer" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "$0: /usr/bin/time (GNU time) is needed" >&2; exit 2; }

peer=${PEER:-}
if [[ -z $peer || ! -x $peer || -d $peer ]]; then
    echo "$0: set PEER to a pgnreader-check binary: cargo build --release a throw-away crate outside the repository that uses pgn-reader + shakmaty (GPL-3: never in the repository)" >&2
    exit 2
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
if [[ -n ${BIN:-} ]]; then
    bin=$BIN
    [[ -x $bin && ! -d $bin ]] || { echo "$0: BIN is not an executable: $bin" >&2; exit 2; }
else
    cargo build --release --bin pgnindex --manifest-path "$repo/Cargo.toml" >&2
    bin=${CARGO_TARGET_DIR:-$repo/target}/release/pgnindex
fi

tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT

cat -- "$input" >/dev/null
echo "input: $input, $(stat -c %s -- "$input") bytes, $(LC_ALL=C grep -c '^\[Event ' -- "$input" || true) games ('[Event ' lines)"
echo "pgnindex: $bin; peer: $peer; $threads threads each"
echo "machine: $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# timed NAME COMMAND...: runs it under GNU time, prints the figures and
# appends the wall time to $tmp/NAME.walls. Output goes to $tmp/NAME.out;
# the exit status is left in $status.
timed() {
    local name=$1
    shift
    status=0
    local start=$EPOCHREALTIME
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$@" >"$tmp/$name.out" 2>&1 || status=$?
    local end=$EPOCHREALTIME
    local wall user sys rss
    # GNU time writes "Command exited with non-zero status N" first then.
    # Its wall time has two decimals: a run of 50 ms needs more.
    read -r _ user sys rss < <(tail -n 1 "$tmp/time")
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
    echo "$wall" >>"$tmp/$name.walls"
    printf '%-9s wall %6s s, user %6s s, sys %5s s, peak RSS %5d MiB, exit %d\n' \
        "$name:" "$wall" "$user" "$sys" "$((rss / 1024))" "$status"
}

run_pgnindex() {
    timed pgnindex "$bin" check --threads "$threads" "$input"
    # Exit 1 only says that a game has an error; 2: INPUT unreadable.
    if ((status > 1)); then
        tail -n 5 "$tmp/pgnindex.out" >&2
        echo "$0: pgnindex check failed (exit $status)" >&2
        exit 1
    fi
}

run_peer() {
    timed peer "$peer" "$input" --threads "$threads"
    if ((status != 0)); then
        tail -n 5 "$tmp/peer.out" >&2
        echo "$0: the peer failed (exit $status)" >&2
        exit 1
    fi
}

for round in $(seq "$rounds"); do
    echo "== round $round"
    if ((round % 2)); then
        run_pgnindex
        run_peer
    else
        run_peer
        run_pgnindex
    fi
    if ((round == 1)); then
        ours=$(tail -n 1 "$tmp/pgnindex.out")
        theirs=$(tail -n 1 "$tmp/peer.out")
        echo "   pgnindex: $ours"
        echo "   peer:     $theirs"
        # "games N, ok ..." and "games N errors ...".
        ours_games=$(awk '{ gsub(",", "", $2); print $2 }' <<<"$ours")
        theirs_games=$(awk '{ print $2 }' <<<"$theirs")
        if [[ $ours_games != "$theirs_games" ]]; then
            echo "$0: game counts differ: pgnindex $ours_games, peer $theirs_games" >&2
            exit 1
        fi
    fi
done

# median FILE: the median of the numbers in FILE, one a line.
median() {
    sort -n -- "$1" | awk '{ v[NR] = $1 } END {
        printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    }'
}
ours_median=$(median "$tmp/pgnindex.walls")
theirs_median=$(median "$tmp/peer.walls")
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "median wall over $rounds rounds: pgnindex $ours_median s, peer $theirs_median s"
awk -v p="$theirs_median" -v o="$ours_median" 'BEGIN {
    if (o > 0) printf "ratio peer / pgnindex: %.2f (above 1: pgnindex is faster)\n", p / o
    else print "ratio peer / pgnindex: n/a (pgnindex wall time rounds to 0)"
}'
