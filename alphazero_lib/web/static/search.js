// The games' rules and AlphaZero's search in JavaScript: a port of alphazero_lib's AlphaMCTS (alpha_mcts.py) with
// the PUCT policy, no root noise, as the player spec alphazero:WEIGHTS:SEARCHES plays. Same operations in the same
// order, in float64 (JavaScript's numbers), so the visit counts come out as Python's up to the network's last bits.
//
// States are Int8Arrays of rows * columns cells (row 0 the top), 0 empty, 1 and -1 the players; the search works on
// canonical states (the mover's pieces are 1), as the library's does.

const DIRECTIONS = [[0, 1], [1, 0], [1, 1], [1, -1]];

// ---- the rules -----------------------------------------------------------------------------------------------
export function makeGame(config) {
  // config: {name: "connect_four" | "tictactoe", rows, columns, in_a_row}
  const drop = config.name === "connect_four";
  const rows = drop ? config.rows : 3;
  const columns = drop ? config.columns : 3;
  const inARow = drop ? config.in_a_row : 3;
  const actionSize = drop ? columns : rows * columns;
  const cells = rows * columns;

  function validMoves(state) {
    const valid = new Uint8Array(actionSize);
    for (let a = 0; a < actionSize; a++) valid[a] = state[a] === 0 ? 1 : 0; // C4: the top cell; TTT: the cell
    return valid;
  }
  function landingCell(state, action) {
    // the cell a piece played as `action` goes to (-1 if illegal)
    if (!drop) return state[action] === 0 ? action : -1;
    for (let r = rows - 1; r >= 0; r--) if (state[r * columns + action] === 0) return r * columns + action;
    return -1;
  }
  function nextState(state, action, player) {
    const cell = landingCell(state, action);
    if (cell < 0) throw new Error(`illegal action ${action}`);
    const out = Int8Array.from(state);
    out[cell] = player;
    return out;
  }
  function playedCell(state, action) {
    // the cell of the piece that `action` placed: the top piece of the column (C4), the cell (TTT); -1 if none
    if (!drop) return state[action] !== 0 ? action : -1;
    for (let r = 0; r < rows; r++) if (state[r * columns + action] !== 0) return r * columns + action;
    return -1;
  }
  function lineThrough(state, cell) {
    // the cells of the longest line of equal pieces through `cell` that is at least inARow long, else null
    const player = state[cell];
    if (player === 0) return null;
    const row = Math.floor(cell / columns), column = cell % columns;
    for (const [dr, dc] of DIRECTIONS) {
      const line = [cell];
      for (const sign of [1, -1]) {
        let r = row + sign * dr, c = column + sign * dc;
        while (r >= 0 && r < rows && c >= 0 && c < columns && state[r * columns + c] === player) {
          line.push(r * columns + c);
          r += sign * dr;
          c += sign * dc;
        }
      }
      if (line.length >= inARow) return line.sort((x, y) => x - y);
    }
    return null;
  }
  function winningLine(state, action) {
    const cell = playedCell(state, action);
    return cell < 0 ? null : lineThrough(state, cell);
  }
  function valueAndTerminated(state, action) {
    // Game.get_value_and_terminated: [1, true] if the player of `action` won, [0, true] on a full board
    if (action === null || action === undefined) return [0, false];
    if (winningLine(state, action) !== null) return [1, true];
    if (!validMoves(state).some((v) => v)) return [0, true];
    return [0, false];
  }
  function encode(state, out, offset) {
    // Game.get_encoded_state: planes (opponent, empty, own) of a canonical state, float32, into out[offset...]
    for (let i = 0; i < cells; i++) {
      out[offset + i] = state[i] === -1 ? 1 : 0;
      out[offset + cells + i] = state[i] === 0 ? 1 : 0;
      out[offset + 2 * cells + i] = state[i] === 1 ? 1 : 0;
    }
  }
  function canonical(state, player) {
    return Int8Array.from(state, (v) => v * player);
  }
  return {
    name: config.name, rows, columns, inARow, actionSize, cells, drop,
    validMoves, landingCell, nextState, winningLine, valueAndTerminated, encode, canonical,
  };
}

// numpy's sum of a float64 vector (pairwise summation, as numpy.add.reduce does for up to 128 numbers)
export function numpySum(values) {
  const n = values.length;
  if (n < 8) {
    let total = 0;
    for (let i = 0; i < n; i++) total += values[i];
    return total;
  }
  if (n > 128) throw new Error("numpySum: written for at most 128 numbers");
  const r = [values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7]];
  let i = 8;
  for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += values[i + j];
  let total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < n; i++) total += values[i];
  return total;
}

// inference.masked_softmax: softmax over the legal actions only, in float64; illegal actions get 0
export function maskedSoftmax(logits, valid) {
  const n = valid.length;
  const shifted = new Float64Array(n);
  let top = -Infinity;
  for (let a = 0; a < n; a++) {
    shifted[a] = valid[a] ? logits[a] : -Infinity;
    if (shifted[a] > top) top = shifted[a];
  }
  const probs = new Float64Array(n);
  if (!Number.isFinite(top)) { // no finite legal logit: uniform over the legal actions
    let count = 0;
    for (let a = 0; a < n; a++) count += valid[a];
    for (let a = 0; a < n; a++) probs[a] = valid[a] / Math.max(count, 1);
    return probs;
  }
  for (let a = 0; a < n; a++) probs[a] = Math.exp(shifted[a] - top);
  const total = numpySum(probs);
  for (let a = 0; a < n; a++) probs[a] /= total;
  return probs;
}

// ---- the search ----------------------------------------------------------------------------------------------
class Node {
  constructor(state, parent, actionTaken, prior) {
    this.state = state;
    this.parent = parent;
    this.actionTaken = actionTaken;
    this.prior = prior;
    this.children = []; // in increasing action order
    this.visitCount = 0;
    this.valueSum = 0;
  }
  expand(game, priors) {
    const valid = game.validMoves(this.state);
    for (let a = 0; a < game.actionSize; a++) {
      if (!valid[a]) continue;
      const child = game.canonical(game.nextState(this.state, a, 1), -1);
      this.children.push(new Node(child, this, a, priors[a]));
    }
  }
  select(C) {
    // the largest Q + C * prior * sqrt(N) / (1 + n), the first (lowest action) on ties: AlphaMCTS's Node.select
    const sqrtParent = Math.sqrt(this.visitCount);
    let best = this.children[0], bestScore = -Infinity;
    for (const child of this.children) {
      const q = child.visitCount > 0 ? -(child.valueSum / child.visitCount) : 0;
      const score = q + C * child.prior * sqrtParent / (1 + child.visitCount);
      if (score > bestScore) {
        best = child;
        bestScore = score;
      }
    }
    return best;
  }
  backpropagate(value) {
    for (let node = this; node !== null; node = node.parent) {
      node.valueSum += value;
      node.visitCount += 1;
      value = -value;
    }
  }
}

// The search as a generator: it yields each canonical state it wants evaluated and receives back
// {logits (A numbers, float32), value (a number)}; it returns {visits, priors, value, action}. One driver feeds it
// one state at a time (the page), another many searches' states in one network call (the batch the tests use).
export function* search(game, state, numSearches, C, onSimulation) {
  const rootEval = yield state;
  const priors = maskedSoftmax(rootEval.logits, game.validMoves(state));
  const root = new Node(state, null, null, 0);
  root.visitCount = 1;
  root.expand(game, priors);
  for (let simulation = 0; simulation < numSearches; simulation++) {
    let node = root.select(C);
    while (node.children.length > 0) node = node.select(C);
    let [value, terminal] = game.valueAndTerminated(node.state, node.actionTaken);
    value = -value; // to the view of the player to move at the leaf
    if (!terminal) {
      const leafEval = yield node.state;
      node.expand(game, maskedSoftmax(leafEval.logits, game.validMoves(node.state)));
      value = leafEval.value;
    }
    node.backpropagate(value);
    if (onSimulation) onSimulation(simulation + 1);
  }
  const visits = new Array(game.actionSize).fill(0);
  for (const child of root.children) visits[child.actionTaken] = child.visitCount;
  let action = 0; // the most visited move, the lowest on ties (SearchOutput.action, np.argmax)
  for (let a = 1; a < visits.length; a++) if (visits[a] > visits[action]) action = a;
  const total = visits.reduce((x, y) => x + y, 0);
  return {
    visits,
    shares: visits.map((v) => (total > 0 ? v / total : 0)),
    priors: Array.from(priors),
    value: rootEval.value, // the network's value of the root for its mover
    searchValue: (rootEval.value + root.valueSum) / root.visitCount,
    action,
  };
}

// Drive many searches at once: every round, one call of `evaluate(encoded [B*3*R*C], B)` for the states all pending
// searches asked for; each search sees exactly what it would alone (the batch changes no tree).
export async function runSearches(game, states, numSearches, C, evaluate, onRound) {
  const searches = states.map((s) => search(game, s, numSearches, C));
  const results = new Array(states.length);
  const pending = searches.map((g, i) => ({ i, step: g.next() }));
  let active = pending;
  let rounds = 0;
  while (active.length > 0) {
    const waiting = [];
    for (const item of active) {
      if (item.step.done) results[item.i] = item.step.value;
      else waiting.push(item);
    }
    if (waiting.length === 0) break;
    const size = 3 * game.cells;
    const encoded = new Float32Array(waiting.length * size);
    waiting.forEach((item, k) => game.encode(item.step.value, encoded, k * size));
    const out = await evaluate(encoded, waiting.length);
    waiting.forEach((item, k) => {
      const logits = out.logits.subarray(k * game.actionSize, (k + 1) * game.actionSize);
      item.step = searches[item.i].next({ logits, value: out.values[k] });
    });
    active = waiting;
    rounds += 1;
    if (onRound) await onRound(rounds);
  }
  return results;
}
