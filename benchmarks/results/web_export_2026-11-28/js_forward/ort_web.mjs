import * as ort from "onnxruntime-web";
ort.env.wasm.numThreads = 1;
for (const name of ["connect_four", "connect_four_fast"]) {
  const s = await ort.InferenceSession.create(`/tmp/${name}.onnx`, { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
  const x = new Float32Array(3 * 42); for (let i = 0; i < 42; i++) x[42 + i] = 1; x[2*42+5*7+3]=1; x[5*7+2]=1;
  const t0 = new ort.Tensor("float32", x, [1, 3, 6, 7]);
  let r = await s.run({ encoded: t0 }); console.log(name, Array.from(r.policy.data).map(v => v.toFixed(4)).join(","), r.value.data[0]);
  const t = performance.now(); const N = 50; for (let i = 0; i < N; i++) await s.run({ encoded: t0 });
  console.log(name, "ms/eval", ((performance.now() - t) / N).toFixed(2));
}
