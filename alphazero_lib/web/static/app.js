// The page: the board, the controls and what the agent thinks. The agent itself (network and search) runs in
// worker.js, so this thread only draws and answers clicks.
import { makeGame } from "./search.js";

const $ = (id) => document.getElementById(id);
const config = await (await fetch("config.json")).json();
const game = makeGame(config.game);
const style = config.style;
const WIN = config.win_color;

// ---- the agent's thread, behind promises ------------------------------------------------------------------------
const worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
const waiting = new Map();
let nextId = 1;
let onProgress = null;
worker.onmessage = (event) => {
  const { type, id, result, error, evaluations } = event.data;
  if (type === "progress") {
    if (onProgress) onProgress(id, evaluations);
    return;
  }
  const entry = waiting.get(id);
  if (!entry) return;
  waiting.delete(id);
  if (error) entry.reject(new Error(error));
  else entry.resolve(result);
};
worker.onerror = (event) => showFatal(`the agent's thread failed: ${event.message || "unknown error"}`);
function ask(type, fields) {
  const id = nextId++;
  const promise = new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
  worker.postMessage({ type, id, ...fields });
  return { id, promise };
}

// ---- the game ----------------------------------------------------------------------------------------------------
let moves = []; // actions played, the first player's first
let states = [new Int8Array(game.cells)]; // states[i]: the board after i moves (1 the first player, -1 the second)
let humanSide = 1;
let thinking = null; // {id} while the agent searches
let lastSearch = null; // the agent's last search: visits, shares, action
let generation = 0; // bumped by new game and undo, so a late answer about an old position is dropped

const current = () => states[states.length - 1];
const toMove = () => (moves.length % 2 === 0 ? 1 : -1);
function outcome() {
  // {winner: 1 | -1 | 0, line: cells | null} once the game is over, else null
  if (moves.length === 0) return null;
  const action = moves[moves.length - 1];
  const mover = -toMove();
  const canonical = game.canonical(current(), mover);
  const [value, over] = game.valueAndTerminated(canonical, action);
  if (!over) return null;
  return { winner: value === 1 ? mover : 0, line: value === 1 ? game.winningLine(current(), action) : null };
}
const sideName = (side) => (side === humanSide ? "you" : "the agent");
const pieceName = (side) => (style.pieces === "mark" ? style.marks[side === 1 ? 0 : 1] : style.color_names[side === 1 ? 0 : 1]);

function searches() {
  const value = Number($("searches").value);
  if (!Number.isInteger(value) || value < 1 || value > 10000) {
    throw new Error(`searches per move must be a whole number from 1 to 10000, got "${$("searches").value}"`);
  }
  return value;
}

// ---- drawing -----------------------------------------------------------------------------------------------------
function setStatus(text, state) {
  const status = $("status");
  status.textContent = text;
  status.dataset.state = state;
  status.classList.toggle("thinking", state === "thinking");
  $("board").classList.toggle("busy", state === "thinking");
}
function showMessage(text) {
  const message = $("message");
  message.textContent = text;
  message.hidden = !text;
}
function showFatal(text) {
  setStatus(`The agent cannot play: ${text}`, "error");
}

function drawBoard() {
  const board = $("board");
  board.className = `board ${style.pieces === "disc" ? "disc" : "mark"}`;
  board.style.background = style.background;
  board.style.gridTemplateColumns = `repeat(${game.columns}, 56px)`;
  board.style.setProperty("--grid", style.grid_color || "#444");
  board.style.setProperty("--win", WIN);
  const over = outcome();
  const line = new Set(over && over.line ? over.line : []);
  const state = current();
  board.replaceChildren();
  let lastCell = -1;
  if (moves.length) {
    const previous = states[states.length - 2];
    for (let i = 0; i < game.cells; i++) if (previous[i] !== state[i]) lastCell = i;
  }
  for (let cell = 0; cell < game.cells; cell++) {
    const div = document.createElement("div");
    div.className = "cell";
    div.dataset.cell = cell;
    div.dataset.action = game.drop ? cell % game.columns : cell;
    const piece = state[cell];
    if (style.pieces === "disc") {
      div.style.background = piece === 0 ? style.hole_color : style.colors[piece === 1 ? 0 : 1];
    } else {
      div.textContent = piece === 0 ? "" : style.marks[piece === 1 ? 0 : 1];
      div.style.color = piece === 0 ? "" : style.colors[piece === 1 ? 0 : 1];
    }
    if (line.has(cell)) div.classList.add("win");
    if (cell === lastCell) div.classList.add("last");
    div.addEventListener("click", () => clicked(Number(div.dataset.action)));
    board.append(div);
  }
}

function drawHeatmap(element, values, valid, best) {
  // one square per action, in the board's layout: a row of columns (Connect Four) or the cells (Tic-Tac-Toe)
  element.replaceChildren();
  element.style.gridTemplateColumns = `repeat(${game.columns}, 40px)`;
  if (!values) return;
  const top = Math.max(...values, 1e-12);
  values.forEach((share, action) => {
    const div = document.createElement("div");
    div.className = "heat";
    div.dataset.action = action;
    div.dataset.share = share.toFixed(4);
    if (valid && !valid[action]) {
      div.classList.add("off");
      div.textContent = "-";
    } else {
      div.style.background = `rgba(21, 101, 192, ${(0.85 * share) / top})`;
      div.style.color = share / top > 0.55 ? "#fff" : "#222";
      div.textContent = `${Math.round(100 * share)}%`;
    }
    if (action === best) div.classList.add("best");
    element.append(div);
  });
}

function drawThoughts(analysis, side) {
  const valid = game.validMoves(current());
  if (analysis) {
    drawHeatmap($("policy"), analysis.priors, valid, null);
    const value = analysis.value;
    $("value").textContent = `The network's value for ${sideName(side)} (${pieceName(side)}, to move): ` +
      `${value >= 0 ? "+" : ""}${value.toFixed(3)} (-1 a loss, +1 a win)`;
  } else {
    drawHeatmap($("policy"), null);
    $("value").textContent = "";
  }
  if (lastSearch) {
    drawHeatmap($("visits"), lastSearch.shares, null, lastSearch.action);
    $("visits-note").textContent = `${lastSearch.visits.reduce((a, b) => a + b, 0)} searches in ` +
      `${(lastSearch.ms / 1000).toFixed(2)} s; it played ${game.drop ? "column" : "cell"} ${lastSearch.action}.`;
  } else {
    drawHeatmap($("visits"), null);
    $("visits-note").textContent = "";
  }
}

function drawStatus() {
  const over = outcome();
  if (over) {
    const text = over.winner === 0 ? "A draw." : over.winner === humanSide ? "You win!" : "The agent wins.";
    setStatus(`${text} ${over.line ? "The winning line is marked. " : ""}Press New game to play again.`, "over");
  } else if (toMove() === humanSide) {
    setStatus(`Your move (${pieceName(humanSide)}): click a ${game.drop ? "column" : "cell"}.`, "human");
  }
}

// ---- playing -----------------------------------------------------------------------------------------------------
function play(action) {
  states.push(game.nextState(current(), action, toMove()));
  moves.push(action);
}

async function analyse() {
  // the network's policy and value for the human's position
  const mine = generation;
  const side = toMove();
  try {
    const analysis = await ask("analyse", { state: Array.from(game.canonical(current(), side)) }).promise;
    if (mine === generation) drawThoughts(analysis, side);
  } catch (error) {
    showFatal(error.message);
  }
}

async function agentMove() {
  const mine = generation;
  const side = toMove();
  let total;
  try {
    total = searches();
  } catch (error) {
    showMessage(error.message);
    setStatus("Set the searches per move, then press New game.", "human");
    return;
  }
  setStatus(`The agent is thinking: ${total} searches...`, "thinking");
  const canonical = Array.from(game.canonical(current(), side));
  // the network's view of the agent's position first (one evaluation), shown while the search runs
  ask("analyse", { state: canonical }).promise.then(
    (analysis) => {
      if (mine === generation && thinking === request) drawThoughts(analysis, side);
    },
    () => {},
  );
  const request = ask("think", { state: canonical, searches: total, C: config.C });
  thinking = request;
  onProgress = (id, evaluations) => {
    if (id === request.id) setStatus(`The agent is thinking: ${evaluations} positions evaluated, ${total} searches...`, "thinking");
  };
  let result;
  try {
    result = await request.promise;
  } catch (error) {
    if (thinking === request) thinking = null;
    if (error.message !== "cancelled") showFatal(error.message);
    return;
  }
  if (thinking === request) thinking = null;
  if (mine !== generation) return; // new game or undo while it thought
  lastSearch = result;
  drawThoughts(result, side);
  play(result.action);
  redraw();
}

function redraw() {
  drawBoard();
  drawStatus();
  if (!outcome() && toMove() === humanSide) analyse();
}

function clicked(action) {
  showMessage("");
  if (thinking) return showMessage("Wait: the agent is still thinking.");
  if (outcome()) return showMessage("The game is over: press New game (or Undo).");
  if (toMove() !== humanSide) return showMessage("It is the agent's move.");
  if (!game.validMoves(current())[action]) {
    return showMessage(game.drop ? `Column ${action} is full: choose another column.` : "That cell is taken: choose an empty cell.");
  }
  play(action);
  redraw();
  if (!outcome()) agentMove();
}

function cancelThinking() {
  if (thinking) {
    worker.postMessage({ type: "cancel", id: thinking.id });
    thinking = null;
  }
}

function newGame() {
  generation += 1;
  cancelThinking();
  showMessage("");
  humanSide = Number($("human-side").value);
  moves = [];
  states = [new Int8Array(game.cells)];
  lastSearch = null;
  drawThoughts(null);
  redraw();
  if (toMove() !== humanSide) agentMove();
}

function undo() {
  showMessage("");
  if (moves.length === 0) return showMessage("Nothing to undo.");
  generation += 1;
  cancelThinking();
  // back to the last position where it was the human's move (and never before the first move)
  do {
    moves.pop();
    states.pop();
  } while (moves.length > 0 && toMove() !== humanSide);
  lastSearch = null;
  drawThoughts(null);
  redraw();
  if (toMove() !== humanSide && !outcome()) agentMove();
}

// ---- start -------------------------------------------------------------------------------------------------------
$("model-name").textContent = config.title;
$("subtitle").textContent = config.subtitle;
$("searches").value = config.searches;
$("new-game").addEventListener("click", newGame);
$("undo").addEventListener("click", undo);
$("human-side").addEventListener("change", newGame);
drawBoard();
const ready = ask("init", { config: { game: config.game, onnx: config.onnx } }).promise;

// For scripts and tests (tests/test_web_in_browser.py, benchmarks/web_export.py): search canonical states in one
// batch, or time one move as the page plays it.
window.alphazero = {
  config,
  ready,
  batch: (canonicalStates, numSearches) =>
    ask("batch", { states: canonicalStates, searches: numSearches, C: config.C }).promise,
  think: (canonicalState, numSearches) =>
    ask("think", { state: canonicalState, searches: numSearches, C: config.C }).promise,
  // the game as the page holds it, and a position set up by its moves (the human to move after them)
  snapshot: () => ({ moves: [...moves], board: Array.from(current()), toMove: toMove(), humanSide, over: outcome() }),
  load: (actions) => {
    generation += 1;
    cancelThinking();
    moves = [];
    states = [new Int8Array(game.cells)];
    for (const action of actions) {
      if (outcome() || !game.validMoves(current())[action]) throw new Error(`move ${action} is not legal here`);
      play(action);
    }
    humanSide = toMove();
    $("human-side").value = String(humanSide);
    lastSearch = null;
    drawThoughts(null);
    redraw();
  },
};

ready.then(
  () => newGame(),
  (error) => showFatal(error.message),
);
