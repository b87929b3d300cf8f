#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets in fuzz/corpus/TARGET/ from the
# shared corpus (read-only), deterministically. Usage:
#
#     fuzz/seed.sh [SHARED_CORPUS_DIR]    # default: ../shared/corpus
#
# - fen:       every FEN of the perft/EPD files and of the PGN FEN tags;
# - epd:       every EPD line of the perft suites (with their operations);
# - san:       "FEN\n" + the first mainline moves of each game (comments,
#              variations, numbers and results removed), and each perft
#              position with a few `@N` move choices;
# - pgn:       each game of the edge files, and the first games of every
#              other file, one small file per game (at most 6 KB);
# - roundtrip: each perft position with a few move-choice bytes.
#
# Needs python3. The corpora are not committed (fuzz/.gitignore).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shared="${1:-$here/../../shared/corpus}"
[ -d "$shared" ] || { echo "seed.sh: no shared corpus at $shared" >&2; exit 2; }
out="$here/corpus"
mkdir -p "$out"

python3 - "$shared" "$out" <<'PY'
import hashlib, os, random, re, sys

shared, out = sys.argv[1], sys.argv[2]
rng = random.Random(6)  # fixed: the same seeds on every run

def save(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

def files(sub, exts):
    for root, _, names in sorted(os.walk(os.path.join(shared, sub))):
        for n in sorted(names):
            if n.lower().endswith(exts):
                yield os.path.join(root, n)

# Positions of the perft suites: EPD lines and "epd ..." lines.
fens, epds = [], []
for path in files("perft", (".epd", ".perft")):
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if path.endswith(".perft"):
            if line.startswith("epd "):
                epds.append(line[4:])
                fens.append(line[4:])
        else:
            epds.append(line)
            fens.append(line.split(";")[0].strip())

games = []  # (text, from an edge file)
for sub in ("edge", "games"):
    for path in files(sub, (".pgn",)):
        data = open(path, "rb").read().decode("utf-8", "surrogateescape")
        parts = re.split(r"\n(?=\[Event )", data)
        if sub == "games":
            parts = parts[:40]
        games += [(p, sub == "edge") for p in parts]
        for m in re.finditer(r'\[FEN "([^"]*)"\]', data):
            fens.append(m.group(1))

fens = list(dict.fromkeys(fens))
for f in fens:
    save("fen", f)
for e in dict.fromkeys(epds):
    save("epd", e)

def mainline(movetext, limit):
    t = re.sub(r"\{[^}]*\}", " ", movetext)
    t = re.sub(r";[^\n]*", " ", t)
    while True:
        t2 = re.sub(r"\([^()]*\)", " ", t)
        if t2 == t:
            break
        t = t2
    t = re.sub(r"\$\d+", " ", t)
    t = re.sub(r"\d+\.(\.\.)?", " ", t)
    toks = [x for x in t.split() if x not in ("1-0", "0-1", "1/2-1/2", "*")]
    return " ".join(toks[:limit])

for text, _ in games:
    if len(text.encode("utf-8", "surrogateescape")) <= 6000:
        save("pgn", text)
    head, _, movetext = text.partition("\n\n")
    fen = re.search(r'\[FEN "([^"]*)"\]', head)
    moves = mainline(movetext, 60)
    if moves:
        save("san", (fen.group(1) if fen else "") + "\n" + moves)

for f in fens[:3000]:
    picks = " ".join("@%d" % rng.randrange(256) for _ in range(rng.randrange(1, 6)))
    save("san", f + "\n" + picks)
    save("roundtrip", f.encode("utf-8", "surrogateescape") + b"\n"
         + bytes(rng.randrange(256) for _ in range(rng.randrange(0, 24))))
for _ in range(50):
    save("roundtrip", b"\n" + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))))

for target in sorted(os.listdir(out)):
    print(f"{target}: {len(os.listdir(os.path.join(out, target)))} seeds")
PY
