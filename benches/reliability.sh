#!/usr/bin/env bash
# Runs tests/it/reliability.rs at full size (1 GB line without a line end,
# 100 MB comment, 1 000 000 tags, 50 GB zstd bomb, 64 MB of random bytes,
# ...) and prints one line per run with exit code, time and peak RSS (GNU
# time); docs/benchmarks.md, Reliability, has the figures. Needs about 2 GB of free space in $TMPDIR and a few minutes.
# Usage: benches/reliability.sh [TEST-NAME-FILTER]   (within reliability::)
set -euo pipefail
cd "$(dirname "$0")/.."
PGNINDEX_FULL_SIZE=1 cargo test --test it -- --nocapture --test-threads 1 "reliability::${1:-}" 2>&1 \
    | grep -oE 'reliability: .*|test result.*|panicked.*'
