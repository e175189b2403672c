// The agent's thread: the network on onnxruntime-web (its files beside this one, nothing from the internet) and the
// search of search.js. The page's own thread only draws, so it never freezes while the agent thinks.
import * as ort from "./ort.wasm.min.mjs";
import { makeGame, maskedSoftmax, runSearches } from "./search.js";

let game = null;
let session = null;
let cancelled = new Set();

async function evaluate(encoded, batch) {
  const input = new ort.Tensor("float32", encoded, [batch, 3, game.rows, game.columns]);
  const out = await session.run({ encoded: input });
  return { logits: out.policy_logits.data, values: out.value.data };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

async function init(config) {
  game = makeGame(config.game);
  ort.env.wasm.numThreads = 1; // threads need a cross-origin isolated page, which a plain static server is not
  ort.env.wasm.wasmPaths = new URL("./", import.meta.url).href;
  const response = await fetch(new URL(config.onnx, import.meta.url));
  if (!response.ok) throw new Error(`could not load ${config.onnx}: HTTP ${response.status}`);
  session = await ort.InferenceSession.create(new Uint8Array(await response.arrayBuffer()), {
    executionProviders: ["wasm"],
  });
}

async function think(message) {
  // one position: the search, with progress reports and a yield to this thread's messages every 50 ms
  const canonical = Int8Array.from(message.state);
  const began = performance.now();
  let lastYield = began;
  let evaluations = 0;
  const counted = async (encoded, batch) => {
    evaluations += batch;
    return evaluate(encoded, batch);
  };
  const [result] = await runSearches(game, [canonical], message.searches, message.C, counted, async () => {
    if (performance.now() - lastYield > 50) {
      postMessage({ type: "progress", id: message.id, evaluations });
      await tick();
      lastYield = performance.now();
      if (cancelled.has(message.id)) throw new Error("cancelled");
    }
  });
  return { ...result, ms: performance.now() - began, evaluations };
}

async function analyse(message) {
  const canonical = Int8Array.from(message.state);
  const encoded = new Float32Array(3 * game.cells);
  game.encode(canonical, encoded, 0);
  const out = await evaluate(encoded, 1);
  return { priors: Array.from(maskedSoftmax(out.logits, game.validMoves(canonical))), value: out.values[0] };
}

async function batch(message) {
  // many positions searched side by side, one network call a round (the tests and the benchmark ask for this)
  const states = message.states.map((s) => Int8Array.from(s));
  const began = performance.now();
  const results = await runSearches(game, states, message.searches, message.C, evaluate);
  return { results, ms: performance.now() - began };
}

const handlers = { init: (m) => init(m.config), think, analyse, batch };

let queue = Promise.resolve(); // one request at a time: the session runs one call at a time

onmessage = (event) => {
  const message = event.data;
  if (message.type === "cancel") {
    cancelled.add(message.id); // seen by a running search at its next yield
    return;
  }
  queue = queue.then(() => handle(message));
};

async function handle(message) {
  try {
    const result = await handlers[message.type](message);
    postMessage({ type: message.type, id: message.id, result });
  } catch (error) {
    postMessage({ type: message.type, id: message.id, error: String(error && error.message ? error.message : error) });
  } finally {
    cancelled.delete(message.id);
  }
}
