#!/usr/bin/env python3
"""Each thread's share of a command's CPU seconds, by thread name (Linux).

usage: benches/thread-shares.py COMMAND [ARGS...]

Runs COMMAND, samples /proc/PID/task/*/stat every 20 ms, and prints, for
each thread name (threads of one name summed: the replay workers are
`pgnindex-worker`, as Linux shows a name's first 15 characters), its CPU
seconds and its share of all threads' seconds, the busiest first; then the
busiest thread that is not a worker. A thread that ends between two
samples loses at most its last 20 ms.

  benches/thread-shares.py target/release/pgnindex import --quiet --db /tmp/x.db GAMES.pgn
"""

import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def sample(pid, seen):
    """Adds the CPU ticks of each thread of `pid` to `seen` (tid -> (name, ticks))."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The name is in parentheses and may hold spaces.
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        ticks = int(fields[11]) + int(fields[12])
        seen[tid] = (name, ticks)


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    seen = {}
    start = time.monotonic()
    child = subprocess.Popen(sys.argv[1:])
    while child.poll() is None:
        sample(child.pid, seen)
        time.sleep(0.02)
    wall = time.monotonic() - start
    by_name = {}
    for name, ticks in seen.values():
        by_name[name] = by_name.get(name, 0) + ticks
    total = sum(by_name.values()) or 1
    print(f"wall {wall:.2f} s, CPU {total / TICK:.2f} s, exit {child.returncode}")
    for name, ticks in sorted(by_name.items(), key=lambda kv: -kv[1]):
        print(f"{name:16} {ticks / TICK:8.2f} s {100 * ticks / total:6.1f} %")
    others = [(t, n) for n, t in seen.values() if not n.startswith("pgnindex-worke")]
    if others:
        ticks, name = max(others)
        print(f"busiest non-worker thread: {name} {100 * ticks / total:.1f} %")
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
