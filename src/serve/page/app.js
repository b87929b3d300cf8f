// The explorer page: a board, the line played, the explorer's table for
// the position, its games, and a viewer for one game. One position is on
// screen: a game opened becomes the line, so the board, the FEN, the line
// and the table follow its moves. The server knows the rules
// (/api/position lists the legal moves), so there is no chess code here:
// only drawing and clicks.

const GLYPHS = { k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const SPEEDS = ["ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"];
const RATINGS = ["0", "1000", "1200", "1400", "1600", "1800", "2000", "2200", "2500"];
const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

const state = {
  db: "lichess", // the explorer asked: masters, lichess or player
  startFen: null, // null: the standard start
  line: [], // moves played: {uci, san, fen}, `fen` once known
  cursor: 0, // moves of `line` on the board
  flipped: false,
  position: null, // the answer of /api/position for the board, null while it is asked
  selected: null, // the square of the piece picked up
  game: null, // the game open in the viewer: its moves are `line`
  player: null, // the whole name the player filter asks for
  request: 0, // the latest refresh; older answers are dropped
  calls: 0, // requests made, so that an error is cleared by a later answer only
  errorCall: 0, // the request whose error is shown
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

function showError(call, error) {
  state.errorCall = call;
  $("status").textContent = error.message;
}

// Answers the JSON of `url`; an error is shown in the header until a
// request made after it is answered.
async function getJson(url) {
  const call = ++state.calls;
  try {
    const response = await fetch(url);
    const text = await response.text();
    if (!response.ok) throw new Error(text.trim() || response.statusText);
    const value = JSON.parse(text.split("\n")[0]);
    if (call > state.errorCall) $("status").textContent = "";
    return value;
  } catch (e) {
    if (call >= state.errorCall) showError(call, e);
    throw e;
  }
}

// ---- the position and its query -------------------------------------------

// A FEN's placement, side, castling and en passant: the position, without
// the move counters.
const fenKey = (fen) => fen.trim().split(/\s+/).slice(0, 4).join(" ");

// The FEN on the board when it is known without asking the server.
function knownFen() {
  if (state.cursor === 0) return state.startFen || START;
  return state.line[state.cursor - 1].fen || null;
}

// The server reads at most 1,000 moves of `play`: a longer line is asked
// from a position of its own whose FEN is known.
const MOST_PLAYED = 400;

function positionQuery() {
  const q = new URLSearchParams();
  let from = 0;
  if (state.cursor > MOST_PLAYED && state.line[state.cursor - MOST_PLAYED - 1].fen) {
    from = state.cursor - MOST_PLAYED;
  }
  const fen = from > 0 ? state.line[from - 1].fen : state.startFen;
  if (fen) q.set("fen", fen);
  const moves = state.line.slice(from, state.cursor).map((m) => m.uci);
  if (moves.length) q.set("play", moves.join(","));
  return q;
}

// The explorer's answer for the database chosen; null for the player's
// before a player is chosen.
function explorerUrl() {
  const q = positionQuery();
  // Every move of the position: no position has more than 218.
  q.set("moves", "256");
  if ($("since").value) q.set("since", state.db === "masters" ? $("since").value.slice(0, 4) : $("since").value);
  if ($("until").value) q.set("until", state.db === "masters" ? $("until").value.slice(0, 4) : $("until").value);
  if (state.db === "masters") return "/masters?" + q;
  const speeds = SPEEDS.filter((s) => $("speed-" + s).checked);
  if (speeds.length < SPEEDS.length) q.set("speeds", speeds.join(","));
  if (state.db === "player") {
    if (!state.player) return null;
    q.set("player", state.player);
    q.set("color", $("color").value);
    return "/player?" + q;
  }
  const ratings = RATINGS.filter((r) => $("rating-" + r).checked);
  if (ratings.length < RATINGS.length) q.set("ratings", ratings.join(","));
  return "/lichess?" + q;
}

// `?db=masters` for a game of the masters database, else nothing.
const gameDb = () => (state.db === "masters" ? "?db=masters" : "");

// The line in the address, so that a reload or a shared link shows it.
function keepInAddress() {
  const q = positionQuery();
  if (state.db !== "lichess") q.set("db", state.db);
  const search = q.toString() ? "?" + q : "";
  if (location.search !== search) history.replaceState(null, "", location.pathname + search + location.hash);
}

// Shows the position of `state.cursor` everywhere: the board, the FEN, the
// line and the game's viewer at once when the position is known, the
// explorer's table when its answer comes.
async function refresh() {
  const request = ++state.request;
  state.selected = null;
  state.position = null;
  const here = state.line[state.cursor - 1];
  const fen = knownFen();
  if (fen) {
    drawBoard(fen, here ? here.uci : null, here ? /[+#]$/.test(here.san) : false);
    $("fen").value = fen;
  }
  drawLine();
  keepInAddress();
  if (state.game) drawGame();
  $("explorer").classList.add("loading");
  const url = explorerUrl();
  try {
    const [position, explorer] = await Promise.all([
      getJson("/api/position?" + positionQuery()),
      url ? getJson(url) : null,
    ]);
    if (request !== state.request) return;
    state.position = position;
    if (here) here.fen = position.fen;
    drawBoard(position.fen, position.lastMove, position.check);
    $("fen").value = position.fen;
    drawExplorer(explorer);
    $("explorer").classList.remove("loading");
  } catch (e) {
    // The error is in the header.
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
      // Files along the bottom edge, ranks along the left, whichever side is down.
      if (r === 7) sq.append(el("span", { class: "coord file" }, "abcdefgh"[file]));
      if (f === 0) sq.append(el("span", { class: "coord rank" }, String(rank + 1)));
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
  board.append(svgEl("svg", { id: "arrows", viewBox: "0 0 8 8" }));
}

function svgEl(tag, attrs) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// The centre of a square in the board's 8 × 8 drawing.
function centre(square) {
  const file = "abcdefgh".indexOf(square[0]);
  const rank = Number(square[1]) - 1;
  const x = state.flipped ? 7 - file : file;
  const y = state.flipped ? rank : 7 - rank;
  return [x + 0.5, y + 0.5];
}

// Draws the arrow of the explorer's move `lichessUci` (none: clears it).
function showArrow(lichessUci) {
  const svg = $("arrows");
  if (!svg) return;
  svg.replaceChildren();
  const move = lichessUci && state.position && state.position.moves.find((m) => m.lichess === lichessUci || m.uci === lichessUci);
  if (!move) return;
  const [x1, y1] = centre(move.from);
  const [x2, y2] = centre(move.to);
  const length = Math.hypot(x2 - x1, y2 - y1);
  // The shaft stops where the head starts.
  const [ux, uy] = [(x2 - x1) / length, (y2 - y1) / length];
  const [bx, by] = [x2 - ux * 0.45, y2 - uy * 0.45];
  const head = [[x2, y2], [bx - uy * 0.28, by + ux * 0.28], [bx + uy * 0.28, by - ux * 0.28]];
  svg.append(
    svgEl("line", { x1, y1, x2: bx, y2: by, stroke: "rgba(21, 120, 27, 0.8)", "stroke-width": 0.18, "stroke-linecap": "round" }),
    svgEl("polygon", { class: "arrow-head", points: head.map((p) => p.join(",")).join(" "), fill: "rgba(21, 120, 27, 0.8)" }),
  );
  svg.dataset.move = lichessUci;
}

function movesFrom(square) {
  if (!state.position) return [];
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

// Plays `move`: the line's own next move steps forward (in a game too);
// another closes the game and branches off from here.
function play(move) {
  const next = state.line[state.cursor];
  if (next && next.uci === move.uci) {
    goTo(state.cursor + 1);
    return;
  }
  if (state.game) closeGame();
  state.line = state.line.slice(0, state.cursor).concat([{ uci: move.uci, san: move.san }]);
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
  // The current move stays in sight in a long line.
  const current = line.querySelector(".current");
  if (current) {
    const top = current.offsetTop;
    if (top < line.scrollTop || top + current.offsetHeight > line.scrollTop + line.clientHeight) {
      line.scrollTop = top - line.clientHeight / 2;
    }
  }
}

function goTo(ply) {
  const cursor = Math.max(0, Math.min(ply, state.line.length));
  if (cursor === state.cursor) return;
  state.cursor = cursor;
  refresh();
}

function step(delta) {
  goTo(state.cursor + delta);
}

// ---- the explorer ------------------------------------------------------------

// White's wins, draws, Black's wins and unfinished games (`*`), apart.
function bar(white, draws, black, unfinished = 0) {
  const total = white + draws + black + unfinished;
  const div = el("div", { class: "bar" });
  if (total === 0) return div;
  for (const [cls, n] of [["w", white], ["d", draws], ["b", black], ["u", unfinished]]) {
    if (cls === "u" && n === 0) continue;
    const pct = (100 * n) / total;
    const span = el("span", { class: cls, style: `width:${pct}%` }, pct >= 12 ? pct.toFixed(0) + "%" : "");
    span.title = `${n} (${pct.toFixed(1)}%)`;
    div.append(span);
  }
  return div;
}

function drawExplorer(data) {
  if (!data) {
    // The player's database before a player is chosen.
    data = { opening: null, white: 0, draws: 0, black: 0, moves: [] };
    $("empty").textContent = "choose a player";
  } else {
    $("empty").textContent = "no games in this position";
  }
  $("opening").textContent = data.opening ? `${data.opening.eco} ${data.opening.name}` : "";
  const total = data.white + data.draws + data.black + (data.unfinished || 0);
  $("empty").hidden = total > 0;
  $("explorer").hidden = total === 0;
  const body = $("explorer").querySelector("tbody");
  body.replaceChildren();
  for (const m of data.moves) {
    const games = m.white + m.draws + m.black + (m.unfinished || 0);
    const row = el("tr", { "data-uci": m.uci },
      el("td", {}, m.san),
      el("td", {}, games.toLocaleString("en")),
      el("td", {}, bar(m.white, m.draws, m.black, m.unfinished || 0)),
      el("td", {}, m.averageRating ? String(m.averageRating) : m.performance ? String(m.performance) : ""));
    row.addEventListener("click", () => playExplorerMove(m.uci));
    row.addEventListener("mouseenter", () => showArrow(m.uci));
    row.addEventListener("mouseleave", () => showArrow(null));
    body.append(row);
  }
  $("total").textContent = total.toLocaleString("en");
  $("total-bar").replaceChildren(bar(data.white, data.draws, data.black, data.unfinished || 0));
  // A list the answer does not have (`/player` has no top games) is not shown.
  $("top-head").hidden = $("top").hidden = total === 0 || !data.topGames;
  $("recent-head").hidden = $("recent").hidden = total === 0 || !data.recentGames;
  drawGames($("top"), data.topGames || []);
  drawGames($("recent"), data.recentGames || []);
}

// A game's result as PGN writes it: `winner` is null for a draw and for an
// unfinished game alike, so the result field tells them apart.
function resultOf(g) {
  if (g.winner === "white") return "1-0";
  if (g.winner === "black") return "0-1";
  if (g.result === "1/2-1/2") return "½-½";
  if (g.result === "*") return "*";
  return g.result ? g.result : "½-½";
}

function gameLabel(g) {
  const player = (p) => `${p.name || "?"}${p.rating ? " (" + p.rating + ")" : ""}`;
  const parts = [`${player(g.white)} – ${player(g.black)}`, resultOf(g)];
  if (g.event) parts.push(g.round ? `${g.event}, round ${g.round}` : g.event);
  else if (g.round) parts.push(`round ${g.round}`);
  if (g.month || g.year) parts.push(String(g.month || g.year));
  return parts.join(", ");
}

function drawGames(list, games) {
  list.replaceChildren();
  for (const g of games) {
    const li = el("li", { "data-id": g.id }, gameLabel(g));
    li.addEventListener("click", () => openGame(g.id));
    list.append(li);
  }
  if (games.length === 0) list.append(el("li", { class: "none" }, "no games"));
}

// ---- the game viewer ---------------------------------------------------------

// Opens a game at the position on the board when the game reaches it (at
// its first visit), else at its start. The game's moves become the line:
// stepping through them moves the explorer with them.
async function openGame(id) {
  const here = knownFen() || (state.position && state.position.fen);
  let game;
  try {
    game = await getJson("/api/game/" + encodeURIComponent(id) + gameDb());
  } catch (e) {
    return;
  }
  const fens = [game.startFen].concat(game.plies.map((p) => p.fen));
  const ply = here ? fens.findIndex((f) => fenKey(f) === fenKey(here)) : -1;
  state.game = game;
  state.startFen = fenKey(game.startFen) === fenKey(START) ? null : game.startFen;
  state.line = game.plies.map((p) => ({ uci: p.uci, san: p.san, fen: p.fen }));
  state.cursor = Math.max(0, ply);
  $("viewer").hidden = false;
  $("lists").hidden = true;
  const tag = (name) => (game.tags.find((t) => t[0] === name) || [])[1] || "?";
  $("viewer-title").textContent = `${tag("White")} – ${tag("Black")}  ${tag("Result")}`;
  $("pgn-link").href = "/api/pgn/" + game.id + gameDb();
  $("tags").replaceChildren(...game.tags.map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, v))));
  drawChart();
  refresh();
}

// Closes the viewer; the board stays where it is, the game's moves stay
// the line.
function closeGame() {
  state.game = null;
  $("viewer").hidden = true;
  $("lists").hidden = false;
  if (/^#game=/.test(location.hash)) history.replaceState(null, "", location.pathname + location.search);
}

function formatClock(seconds) {
  if (seconds == null) return "–";
  const s = Math.round(seconds);
  return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

// The evaluation as White's winning chances, from -1 to 1, as lichess
// draws its chart: a pawn or two is plain to see, ten pawns or a mate are
// near the edge.
function winningChances(p) {
  if (p.mate != null) return p.mate > 0 || (p.mate === 0 && p.eval > 0) ? 1 : -1;
  if (p.eval == null) return null;
  return 2 / (1 + Math.exp(-0.00368208 * p.eval * 100)) - 1;
}

function drawChart() {
  const svg = $("chart");
  const plies = state.game.plies;
  const points = plies
    .map((p, i) => [i, winningChances(p)])
    .filter(([, v]) => v !== null)
    .map(([i, v]) => `${((300 * (i + 1)) / Math.max(1, plies.length)).toFixed(2)},${(40 - 38 * v).toFixed(2)}`);
  svg.innerHTML = `<line x1="0" y1="40" x2="300" y2="40" stroke="#999" stroke-width="0.5"/>` +
    (points.length ? `<polyline fill="none" stroke="#2f3b45" stroke-width="1.5" points="${points.join(" ")}"/>` : "") +
    `<line id="chart-cursor" x1="0" y1="0" x2="0" y2="80" stroke="#c33" stroke-width="1"/>`;
  svg.onclick = (e) => {
    const rect = svg.getBoundingClientRect();
    goTo(Math.round(((e.clientX - rect.left) / rect.width) * plies.length));
  };
  svg.style.display = points.length ? "" : "none";
}

// The viewer at the game's ply on the board: the clocks and evaluation.
function drawGame() {
  const game = state.game;
  const ply = state.cursor;
  const blackFirst = game.startFen.split(" ")[1] === "b";
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

// ---- the player filter -------------------------------------------------------

// The stored names containing the text typed, as `--player` matches it.
async function playerNames(part) {
  return part ? getJson("/api/players?" + new URLSearchParams({ q: part })) : [];
}

function playerHint(text, names = []) {
  const hint = $("player-hint");
  hint.replaceChildren(text);
  for (const n of names) {
    hint.append(el("button", { type: "button", "data-name": n.name, onclick: () => choosePlayer(n.name) }, n.name));
  }
  hint.hidden = !text;
}

function choosePlayer(name) {
  $("player").value = name || "";
  playerHint("");
  if (state.player === (name || null)) return;
  state.player = name || null;
  saveSettings();
  refresh();
}

// The filter takes the name typed when one stored name matches it (or
// one is the same but for letter case); with several it offers them, with
// none it says so.
async function submitPlayer() {
  const part = $("player").value.trim();
  if (!part) {
    choosePlayer(null);
    return;
  }
  let names;
  try {
    names = await playerNames(part);
  } catch (e) {
    return;
  }
  if ($("player").value.trim() !== part) return;
  const same = names.filter((n) => n.name.toLowerCase() === part.toLowerCase());
  if (same.length === 1 || names.length === 1) choosePlayer((same[0] || names[0]).name);
  else if (names.length === 0) playerHint(`no player matches “${part}”`);
  else playerHint(`players matching “${part}”, most games first:`, names);
}

// The names offered under the input as it is typed.
let suggestTimer = null;
function suggestPlayers() {
  clearTimeout(suggestTimer);
  const part = $("player").value.trim();
  suggestTimer = setTimeout(async () => {
    let names = [];
    try {
      names = await playerNames(part);
    } catch (e) {
      return;
    }
    if ($("player").value.trim() !== part) return;
    $("player-names").replaceChildren(...names.map((n) => el("option", { value: n.name }, `${n.games} games`)));
  }, 250);
}

// ---- set up ------------------------------------------------------------------

// ---- the database and the settings --------------------------------------------

function chooseDb(db) {
  state.db = db;
  for (const b of document.querySelectorAll("#dbs button")) b.classList.toggle("on", b.dataset.db === db);
  $("speeds").hidden = db === "masters";
  $("ratings").hidden = db !== "lichess";
  $("player-row").hidden = db !== "player";
  $("player-hint").hidden = db !== "player" || !$("player-hint").textContent;
  // The player's table shows the performance, the others the average rating.
  $("explorer").querySelector("thead th:last-child").textContent = db === "player" ? "Perf" : "Avg";
}

const SETTINGS = "pgnindex-explorer";

// The filters, the colour, the side of the board and the database, kept
// across reloads.
function saveSettings() {
  const settings = {
    db: state.db,
    flipped: state.flipped,
    speeds: SPEEDS.filter((s) => $("speed-" + s).checked),
    ratings: RATINGS.filter((r) => $("rating-" + r).checked),
    since: $("since").value,
    until: $("until").value,
    color: $("color").value,
    player: state.player,
  };
  try {
    localStorage.setItem(SETTINGS, JSON.stringify(settings));
  } catch (e) {
    // Storage refused (a private window): the settings last the page.
  }
}

function loadSettings() {
  let settings = null;
  try {
    settings = JSON.parse(localStorage.getItem(SETTINGS) || "null");
  } catch (e) {
    return;
  }
  if (!settings) return;
  for (const s of SPEEDS) $("speed-" + s).checked = (settings.speeds || SPEEDS).includes(s);
  for (const r of RATINGS) $("rating-" + r).checked = (settings.ratings || RATINGS).includes(r);
  $("since").value = settings.since || "";
  $("until").value = settings.until || "";
  if (settings.color === "black") $("color").value = "black";
  state.flipped = !!settings.flipped;
  if (settings.player) {
    state.player = settings.player;
    $("player").value = settings.player;
  }
  if (["masters", "lichess", "player"].includes(settings.db)) chooseDb(settings.db);
}

// The line of the address (`?fen=…&play=…&db=…`), played with its SAN.
async function lineFromAddress() {
  const q = new URLSearchParams(location.search);
  if (["masters", "lichess", "player"].includes(q.get("db"))) chooseDb(q.get("db"));
  if (!q.get("fen") && !q.get("play")) return;
  await setLine(new URLSearchParams([...q].filter(([k]) => k === "fen" || k === "play")));
}

// Asks the server for the line of `query` (`fen` with `play` or `pgn`) and
// shows it at its end; an error leaves the board as it was.
async function setLine(query) {
  let position;
  try {
    position = await getJson("/api/position?" + query);
  } catch (e) {
    return false;
  }
  const fen = query.get("fen");
  state.startFen = fen && fenKey(fen) !== fenKey(START) ? fen : null;
  state.line = position.line.map((m) => ({ uci: m.uci, san: m.san }));
  state.cursor = state.line.length;
  if (state.line.length) state.line[state.line.length - 1].fen = position.fen;
  return true;
}

function setUp() {
  for (const s of SPEEDS) {
    $("speeds").append(el("label", {}, el("input", { type: "checkbox", id: "speed-" + s, checked: "" }), " " + s));
  }
  for (const r of RATINGS) {
    $("ratings").append(el("label", {}, el("input", { type: "checkbox", id: "rating-" + r, checked: "" }), " " + r));
  }
  loadSettings();
  chooseDb(state.db);
  for (const b of document.querySelectorAll("#dbs button")) {
    b.addEventListener("click", () => {
      if (b.dataset.db === state.db) return;
      if (state.game) closeGame();
      chooseDb(b.dataset.db);
      saveSettings();
      refresh();
    });
  }
  $("filters").addEventListener("change", (e) => {
    if (e.target === $("player")) submitPlayer();
    else if (e.target !== $("color") || state.player) refresh();
    saveSettings();
  });
  // Enter changes the input, which asks for the name (above): the form
  // itself is not sent.
  $("player-form").addEventListener("submit", (e) => e.preventDefault());
  $("player").addEventListener("input", suggestPlayers);
  $("first").addEventListener("click", () => goTo(0));
  $("back").addEventListener("click", () => step(-1));
  $("fwd").addEventListener("click", () => step(1));
  $("last").addEventListener("click", () => goTo(Infinity));
  $("flip").addEventListener("click", () => {
    state.flipped = !state.flipped;
    saveSettings();
    const p = state.position;
    if (p) drawBoard(p.fen, p.lastMove, p.check);
    else refresh();
  });
  $("close-game").addEventListener("click", closeGame);
  // A FEN the server refuses leaves the board as it was; moves (no `/`)
  // are played from the start of the line.
  $("fen-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const fen = $("fen").value.trim();
    if (fen && !fen.includes("/")) {
      const q = new URLSearchParams({ pgn: fen });
      if (state.startFen) q.set("fen", state.startFen);
      if (await setLine(q)) {
        closeGame();
        refresh();
      }
      return;
    }
    let position;
    try {
      position = await getJson("/api/position?" + new URLSearchParams(fen ? { fen } : {}));
    } catch (error) {
      return;
    }
    state.startFen = fenKey(position.fen) === fenKey(START) ? null : position.fen;
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
  lineFromAddress().then(refresh);
  // A link to a game: #game=ID opens it in the viewer.
  const openLinked = () => {
    const linked = /^#game=(\d+)$/.exec(location.hash);
    if (linked) openGame(linked[1]);
  };
  window.addEventListener("hashchange", openLinked);
  openLinked();
}

setUp();
