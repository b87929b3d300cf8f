#!/usr/bin/env bash
# The explorer server's time for one computed request on fixed positions:
# for each position and each run, a new `pgnindex serve` (so no answer is
# kept from before), one `/lichess` request timed by curl, the server
# stopped. Prints, per position, its games and the best / median / worst
# time in ms.
#
#   benches/serve-positions.sh PGNINDEX DB [RUNS]      (RUNS defaults to 3)
#
# PORT (default 9110) is the port used; ROUTE (default lichess) the route
# asked (`masters`: the masters games of DB). The positions: the start, 1. e4,
# 1. e4 c5, an open Sicilian at 6 plies, the Queen's Gambit Declined at 8,
# the Ruy Lopez at 10 and 12, and a rare line of 20 plies from one game of
# the corpus's lichess file.
set -euo pipefail

[[ $# -ge 2 && $# -le 3 ]] || { echo "usage: $0 PGNINDEX DB [RUNS]" >&2; exit 2; }
bin=$1
db=$2
runs=${3:-3}
port=${PORT:-9110}
route=${ROUTE:-lichess}
[[ $route =~ ^(lichess|masters)$ ]] || { echo "$0: ROUTE must be lichess or masters" >&2; exit 2; }
for tool in curl python3; do
    command -v "$tool" >/dev/null || { echo "$0: $tool is needed" >&2; exit 2; }
done
[[ -f $db ]] || { echo "$0: no database $db" >&2; exit 2; }

names=(start e4 e4-c5 sicilian-6 qgd-8 ruy-10 ruy-12 rare-20)
plays=(
    ""
    "e2e4"
    "e2e4,c7c5"
    "e2e4,c7c5,g1f3,d7d6,d2d4,c5d4"
    "d2d4,d7d5,c2c4,e7e6,b1c3,g8f6,c1g5,f8e7"
    "e2e4,e7e5,g1f3,b8c6,f1b5,a7a6,b5a4,g8f6,e1g1,f8e7"
    "e2e4,e7e5,g1f3,b8c6,f1b5,a7a6,b5a4,g8f6,e1g1,f8e7,f1e1,b7b5"
    "e2e4,e7e6,d2d4,b7b6,a2a3,c8b7,b1c3,g8h6,c1h6,g7h6,f1e2,d8g5,e2g4,h6h5,g1f3,g5g6,f3h4,g6g5,g4h5,g5h4"
)
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# One computed request: prints "ms games".
request() {
    "$bin" serve --db "$db" --bind "127.0.0.1:$port" >/dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && break
        sleep 0.1
    done
    local t
    t=$(curl -s -o "$out" -w '%{time_total}' "http://127.0.0.1:$port/$route?play=$1")
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(round(float(sys.argv[2])*1000), d['white']+d['draws']+d['black'])" "$out" "$t"
}

printf '%-12s %10s %8s %8s %8s\n' position games best median worst
for i in "${!names[@]}"; do
    times=()
    games=0
    for _ in $(seq "$runs"); do
        read -r ms games < <(request "${plays[$i]}")
        times+=("$ms")
    done
    sorted=($(printf '%s\n' "${times[@]}" | sort -n))
    printf '%-12s %10s %8s %8s %8s\n' "${names[$i]}" "$games" "${sorted[0]}" \
        "${sorted[$(((runs - 1) / 2))]}" "${sorted[$((runs - 1))]}"
done
