// The explorer page: a board, the line played, the explorer's table for
// the position, its games, and a viewer for one game. The server knows the
// rules (/api/position lists the legal moves), so there is no chess code
// here: only drawing and clicks.

const GLYPHS = { k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const SPEEDS = ["ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"];
const RATINGS = ["0", "1000", "1200", "1400", "1600", "1800", "2000", "2200", "2500"];
const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

const state = {
  startFen: null, // null: the standard start
  line: [], // moves played: {uci, san}
  cursor: 0, // moves of `line` on the board
  flipped: false,
  position: null, // the answer of /api/position
  selected: null, // the square of the piece picked up
  game: null, // the game open in the viewer
  gamePly: 0,
  request: 0, // the latest refresh; older answers are dropped
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function status(text) {
  $("status").textContent = text || "";
}

async function getJson(url) {
  const response = await fetch(url);
  const text = await response.text();
  if (!response.ok) throw new Error(text.trim() || response.statusText);
  return JSON.parse(text.split("\n")[0]);
}

// ---- the position and its query -------------------------------------------

function played() {
  return state.line.slice(0, state.cursor).map((m) => m.uci);
}

function positionQuery() {
  const q = new URLSearchParams();
  if (state.startFen) q.set("fen", state.startFen);
  if (state.cursor > 0) q.set("play", played().join(","));
  return q;
}

function explorerUrl() {
  const q = positionQuery();
  const speeds = SPEEDS.filter((s) => $("speed-" + s).checked);
  if (speeds.length < SPEEDS.length) q.set("speeds", speeds.join(","));
  const ratings = RATINGS.filter((r) => $("rating-" + r).checked);
  if (ratings.length < RATINGS.length) q.set("ratings", ratings.join(","));
  if ($("since").value) q.set("since", $("since").value);
  if ($("until").value) q.set("until", $("until").value);
  q.set("moves", "30");
  const player = $("player").value.trim();
  if (player) {
    q.set("player", player);
    q.set("color", $("color").value);
    return "/player?" + q;
  }
  q.set("topGames", "4");
  q.set("recentGames", "4");
  return "/lichess?" + q;
}

async function refresh() {
  const request = ++state.request;
  state.selected = null;
  try {
    const [position, explorer] = await Promise.all([
      getJson("/api/position?" + positionQuery()),
      getJson(explorerUrl()),
    ]);
    if (request !== state.request) return;
    state.position = position;
    status("");
    if (!state.game) drawBoard(position.fen, position.lastMove, position.check);
    $("fen").value = position.fen;
    drawLine();
    drawExplorer(explorer);
  } catch (e) {
    if (request === state.request) status(e.message);
  }
}

// ---- the board -------------------------------------------------------------

function squareName(file, rank) {
  return "abcdefgh"[file] + (rank + 1);
}

function drawBoard(fen, lastMove, check) {
  const board = $("board");
  board.replaceChildren();
  const rows = fen.split(" ")[0].split("/");
  const turn = fen.split(" ")[1];
  const pieces = {};
  rows.forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (/\d/.test(c)) file += Number(c);
      else pieces[squareName(file++, 7 - i)] = c;
    }
  });
  const marked = lastMove && lastMove !== "0000" ? [lastMove.slice(0, 2), lastMove.slice(2, 4)] : [];
  for (let r = 0; r < 8; r++) {
    for (let f = 0; f < 8; f++) {
      const file = state.flipped ? 7 - f : f;
      const rank = state.flipped ? r : 7 - r;
      const name = squareName(file, rank);
      const sq = el("div", {
        class: "sq " + ((file + rank) % 2 ? "light" : "dark"),
        "data-square": name,
      });
      if (marked.includes(name)) sq.classList.add("last");
      const piece = pieces[name];
      if (piece) {
        const white = piece === piece.toUpperCase();
        const span = el("span", {
          class: "piece " + (white ? "w" : "b"),
          "data-piece": piece,
          draggable: "true",
        }, GLYPHS[piece.toLowerCase()]);
        span.addEventListener("dragstart", (e) => {
          e.dataTransfer.setData("text/plain", name);
          pick(name);
        });
        sq.append(span);
        if (check && piece.toLowerCase() === "k" && white === (turn === "w")) sq.classList.add("check");
      }
      if ((state.flipped ? r === 7 : r === 7)) sq.append(el("span", { class: "coord" }, "abcdefgh"[file]));
      sq.addEventListener("click", () => clickSquare(name));
      sq.addEventListener("dragover", (e) => e.preventDefault());
      sq.addEventListener("drop", (e) => {
        e.preventDefault();
        const from = e.dataTransfer.getData("text/plain");
        if (from) tryMove(from, name);
      });
      board.append(sq);
    }
  }
}

function movesFrom(square) {
  if (state.game || !state.position) return [];
  return state.position.moves.filter((m) => m.from === square);
}

function pick(square) {
  document.querySelectorAll(".sq.selected, .sq.target").forEach((s) => s.classList.remove("selected", "target"));
  const moves = movesFrom(square);
  if (moves.length === 0) {
    state.selected = null;
    return;
  }
  state.selected = square;
  document.querySelector(`[data-square="${square}"]`).classList.add("selected");
  for (const m of moves) document.querySelector(`[data-square="${m.to}"]`).classList.add("target");
}

function clickSquare(square) {
  if (state.selected && state.selected !== square && tryMove(state.selected, square)) return;
  pick(square);
}

// Plays the legal move from → to, a promotion once its piece is chosen;
// false if there is none.
function tryMove(from, to) {
  const moves = movesFrom(from).filter((m) => m.to === to);
  if (moves.length === 0) return false;
  if (moves.length === 1) play(moves[0]);
  else choosePromotion(moves);
  return true;
}

// Offers the pieces a pawn may become; the one clicked is played.
function choosePromotion(moves) {
  const box = $("promotion");
  const white = state.position.fen.split(" ")[1] === "w";
  box.replaceChildren();
  for (const role of ["q", "r", "b", "n"]) {
    const move = moves.find((m) => m.promotion === role);
    if (!move) continue;
    const button = el("button", { "data-promotion": role, class: "piece " + (white ? "w" : "b") }, GLYPHS[role]);
    button.addEventListener("click", () => {
      box.hidden = true;
      play(move);
    });
    box.append(button);
  }
  const cancel = el("button", { class: "cancel" }, "×");
  cancel.addEventListener("click", () => (box.hidden = true));
  box.append(cancel);
  box.hidden = false;
}

function play(move) {
  const next = state.line[state.cursor];
  if (!next || next.uci !== move.uci) state.line = state.line.slice(0, state.cursor).concat([{ uci: move.uci, san: move.san }]);
  state.cursor++;
  refresh();
}

// Plays the explorer's move (castling written king takes rook).
function playExplorerMove(lichessUci) {
  const move = state.position && state.position.moves.find((m) => m.lichess === lichessUci || m.uci === lichessUci);
  if (move) play(move);
}

function drawLine() {
  const line = $("line");
  line.replaceChildren();
  const fenMove = Number((state.startFen || START).split(" ")[5]) || 1;
  const blackFirst = (state.startFen || START).split(" ")[1] === "b";
  state.line.forEach((m, i) => {
    const ply = i + (blackFirst ? 1 : 0);
    if (ply % 2 === 0 || i === 0) line.append(`${fenMove + Math.floor(ply / 2)}.${ply % 2 ? ".." : ""} `);
    const span = el("span", { class: "mv" + (i + 1 === state.cursor ? " current" : ""), "data-ply": i + 1 }, m.san);
    span.addEventListener("click", () => goTo(i + 1));
    line.append(span, " ");
  });
}

function goTo(ply) {
  if (state.game) {
    state.gamePly = Math.max(0, Math.min(ply, state.game.plies.length));
    drawGame();
    return;
  }
  const cursor = Math.max(0, Math.min(ply, state.line.length));
  if (cursor === state.cursor) return;
  state.cursor = cursor;
  refresh();
}

function step(delta) {
  goTo((state.game ? state.gamePly : state.cursor) + delta);
}

// ---- the explorer ------------------------------------------------------------

function bar(white, draws, black) {
  const total = white + draws + black;
  const div = el("div", { class: "bar" });
  if (total === 0) return div;
  for (const [cls, n] of [["w", white], ["d", draws], ["b", black]]) {
    const pct = (100 * n) / total;
    const span = el("span", { class: cls, style: `width:${pct}%` }, pct >= 12 ? pct.toFixed(0) + "%" : "");
    span.title = `${n} (${pct.toFixed(1)}%)`;
    div.append(span);
  }
  return div;
}

function drawExplorer(data) {
  $("opening").textContent = data.opening ? `${data.opening.eco} ${data.opening.name}` : "";
  const body = $("explorer").querySelector("tbody");
  body.replaceChildren();
  for (const m of data.moves) {
    const games = m.white + m.draws + m.black;
    const row = el("tr", { "data-uci": m.uci },
      el("td", {}, m.san),
      el("td", {}, games.toLocaleString("en")),
      el("td", {}, bar(m.white, m.draws, m.black)),
      el("td", {}, m.averageRating ? String(m.averageRating) : ""));
    row.addEventListener("click", () => playExplorerMove(m.uci));
    body.append(row);
  }
  const total = data.white + data.draws + data.black;
  $("total").textContent = total.toLocaleString("en");
  $("total-bar").replaceChildren(bar(data.white, data.draws, data.black));
  drawGames($("top"), data.topGames || []);
  drawGames($("recent"), data.recentGames || []);
}

function gameLabel(g) {
  const player = (p) => `${p.name || "?"}${p.rating ? " (" + p.rating + ")" : ""}`;
  const result = g.winner === "white" ? "1-0" : g.winner === "black" ? "0-1" : "½-½ / *";
  return `${player(g.white)} – ${player(g.black)}, ${result}${g.month || g.year ? ", " + (g.month || g.year) : ""}`;
}

function drawGames(list, games) {
  list.replaceChildren();
  for (const g of games) {
    const li = el("li", { "data-id": g.id }, gameLabel(g));
    li.addEventListener("click", () => openGame(g.id));
    list.append(li);
  }
}

// ---- the game viewer ---------------------------------------------------------

async function openGame(id) {
  try {
    const game = await getJson("/api/game/" + encodeURIComponent(id));
    state.game = game;
    state.gamePly = 0;
    $("viewer").hidden = false;
    $("lists").hidden = true;
    const tag = (name) => (game.tags.find((t) => t[0] === name) || [])[1] || "?";
    $("viewer-title").textContent = `${tag("White")} – ${tag("Black")}  ${tag("Result")}`;
    $("pgn-link").href = "/masters/pgn/" + game.id;
    $("tags").replaceChildren(...game.tags.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, v))));
    drawChart();
    drawGame();
  } catch (e) {
    status(e.message);
  }
}

function closeGame() {
  state.game = null;
  $("viewer").hidden = true;
  $("lists").hidden = false;
  if (state.position) drawBoard(state.position.fen, state.position.lastMove, state.position.check);
}

function formatClock(seconds) {
  if (seconds == null) return "–";
  const s = Math.round(seconds);
  return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

function evalOf(p) {
  if (p.mate != null) return p.mate > 0 ? 10 : -10;
  if (p.eval == null) return null;
  return Math.max(-10, Math.min(10, p.eval));
}

function drawChart() {
  const svg = $("chart");
  const plies = state.game.plies;
  const points = plies
    .map((p, i) => [i, evalOf(p)])
    .filter(([, v]) => v !== null)
    .map(([i, v]) => `${(300 * (i + 1)) / Math.max(1, plies.length)},${40 - 4 * v}`);
  svg.innerHTML = `<line x1="0" y1="40" x2="300" y2="40" stroke="#999" stroke-width="0.5"/>` +
    (points.length ? `<polyline fill="none" stroke="#2f3b45" stroke-width="1.5" points="${points.join(" ")}"/>` : "") +
    `<line id="chart-cursor" x1="0" y1="0" x2="0" y2="80" stroke="#c33" stroke-width="1"/>`;
  svg.onclick = (e) => {
    const rect = svg.getBoundingClientRect();
    goTo(Math.round(((e.clientX - rect.left) / rect.width) * plies.length));
  };
  svg.style.display = points.length ? "" : "none";
}

function drawGame() {
  const game = state.game;
  const ply = state.gamePly;
  const here = ply === 0 ? { fen: game.startFen, uci: null } : game.plies[ply - 1];
  const check = /[+#]$/.test(ply === 0 ? "" : here.san);
  drawBoard(here.fen, here.uci, check);
  const moves = $("viewer-moves");
  moves.replaceChildren();
  const startMove = Number(game.startFen.split(" ")[5]) || 1;
  const blackFirst = game.startFen.split(" ")[1] === "b";
  game.plies.forEach((p, i) => {
    const n = i + (blackFirst ? 1 : 0);
    if (n % 2 === 0 || i === 0) moves.append(`${startMove + Math.floor(n / 2)}.${n % 2 ? ".." : ""} `);
    const span = el("span", { class: "mv" + (i + 1 === ply ? " current" : ""), "data-ply": i + 1 }, p.san);
    span.addEventListener("click", () => goTo(i + 1));
    moves.append(span, " ");
  });
  // The clocks after the last move of each side.
  const lastOf = (parity) => {
    for (let i = ply - 1; i >= 0; i--) if ((i + (blackFirst ? 1 : 0)) % 2 === parity) return game.plies[i];
    return null;
  };
  const w = lastOf(0);
  const b = lastOf(1);
  const current = ply > 0 ? game.plies[ply - 1] : null;
  const ev = current && (current.mate != null ? `#${current.mate}` : current.eval != null ? current.eval.toFixed(2) : null);
  $("clocks").textContent = `White ${formatClock(w && w.clock)} · Black ${formatClock(b && b.clock)}` +
    (ev ? ` · eval ${ev}` : "") + ` · ply ${ply}/${game.plies.length}`;
  const cursor = document.getElementById("chart-cursor");
  if (cursor) {
    const x = (300 * ply) / Math.max(1, game.plies.length);
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
  }
}

// ---- set up ------------------------------------------------------------------

function setUp() {
  for (const s of SPEEDS) {
    $("speeds").append(el("label", {}, el("input", { type: "checkbox", id: "speed-" + s, checked: "" }), " " + s));
  }
  for (const r of RATINGS) {
    $("ratings").append(el("label", {}, el("input", { type: "checkbox", id: "rating-" + r, checked: "" }), " " + r));
  }
  $("filters").addEventListener("change", () => refresh());
  $("first").addEventListener("click", () => goTo(0));
  $("back").addEventListener("click", () => step(-1));
  $("fwd").addEventListener("click", () => step(1));
  $("last").addEventListener("click", () => goTo(Infinity));
  $("flip").addEventListener("click", () => {
    state.flipped = !state.flipped;
    if (state.game) drawGame();
    else if (state.position) drawBoard(state.position.fen, state.position.lastMove, state.position.check);
  });
  $("close-game").addEventListener("click", closeGame);
  $("fen-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const fen = $("fen").value.trim();
    state.startFen = fen && fen !== START ? fen : null;
    state.line = [];
    state.cursor = 0;
    closeGame();
    refresh();
  });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowLeft") step(-1);
    else if (e.key === "ArrowRight") step(1);
    else if (e.key === "Home") goTo(0);
    else if (e.key === "End") goTo(Infinity);
    else return;
    e.preventDefault();
  });
  refresh();
  // A link to a game: #game=ID opens it in the viewer.
  const openLinked = () => {
    const linked = /^#game=(\d+)$/.exec(location.hash);
    if (linked) openGame(linked[1]);
  };
  window.addEventListener("hashchange", openLinked);
  openLinked();
}

setUp();
