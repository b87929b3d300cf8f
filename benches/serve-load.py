#!/usr/bin/env python3
"""Load on a running `pgnindex serve`: CLIENTS threads walk the opening
explorer as its users do, from the start position, each step a `/lichess`
request and a move chosen by its games (so popular lines come up as
often as they are played), down to a random depth of 0 to 12 plies, then
again from the start, until REQUESTS requests were made in all. Prints
the statuses, the latency percentiles (of every request, and of the
first ask of each position: the ones the server computes, as it keeps
its answers) and, with --pid, the server's peak resident memory.

    benches/serve-load.py URL [--requests 2000] [--clients 32] [--pid PID] [--seed 1] [--slowest N]

Standard library only. Every request must answer 200: any other status,
or a connection error, is counted and makes the exit status 1.
"""

import argparse
import json
import random
import threading
import time
import urllib.error
import urllib.request


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the server, e.g. http://127.0.0.1:9002")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--pid", type=int, help="the server's pid, for its peak memory")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slowest", type=int, default=0, help="print the N slowest first asks")
    args = parser.parse_args()

    lock = threading.Lock()
    state = {"left": args.requests}
    latencies = []
    first_asks = []
    slow = []
    asked = set()
    failures = []

    def take():
        with lock:
            if state["left"] <= 0:
                return False
            state["left"] -= 1
            return True

    def client(seed):
        rng = random.Random(seed)
        while True:
            depth = rng.randint(0, 12)
            play = []
            for _ in range(depth + 1):
                if not take():
                    return
                url = f"{args.url}/lichess?play={','.join(play)}"
                start = time.perf_counter()
                try:
                    with urllib.request.urlopen(url, timeout=120) as response:
                        body = response.read()
                        status = response.status
                except urllib.error.HTTPError as e:
                    body, status = b"", e.code
                except OSError as e:
                    body, status = b"", f"error: {e}"
                elapsed = time.perf_counter() - start
                with lock:
                    latencies.append(elapsed)
                    if url not in asked:
                        asked.add(url)
                        first_asks.append(elapsed)
                        slow.append((elapsed, url))
                    if status != 200:
                        failures.append((url, status))
                if status != 200:
                    break
                moves = json.loads(body)["moves"]
                weights = [m["white"] + m["draws"] + m["black"] for m in moves]
                if not moves or sum(weights) == 0:
                    break
                play.append(rng.choices(moves, weights=weights)[0]["uci"])

    started = time.perf_counter()
    threads = [
        threading.Thread(target=client, args=(args.seed * 1000 + i,)) for i in range(args.clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started

    def pct(values, p):
        return values[min(len(values) - 1, int(p / 100 * len(values)))] * 1000

    print(f"{len(latencies)} requests from {args.clients} clients in {wall:.1f} s "
          f"({len(latencies) / wall:.0f}/s); {len(failures)} not 200")
    for name, values in (("latency ms", latencies), ("first asks ms", first_asks)):
        values.sort()
        print(f"{name}: p50 {pct(values, 50):.0f}, p95 {pct(values, 95):.0f}, "
              f"p99 {pct(values, 99):.0f}, max {values[-1] * 1000:.0f} ({len(values)} requests)")
    if args.pid:
        with open(f"/proc/{args.pid}/status") as status:
            for line in status:
                if line.startswith(("VmHWM", "VmRSS")):
                    print(line.strip())
    for elapsed, url in sorted(slow, reverse=True)[:args.slowest]:
        print(f"  {elapsed * 1000:.0f} ms: {url}")
    for url, status in failures[:10]:
        print(f"  {status}: {url}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
