const fs = require("fs"); const { forward, prepare } = require("./net.js");
for (const name of ["connect_four", "connect_four_fast"]) {
  const meta = JSON.parse(fs.readFileSync(`/tmp/${name}.json`)); const buf = fs.readFileSync(`/tmp/${name}.bin`);
  const all = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4); const P = {}; let off = 0;
  for (const [k, s] of Object.entries(meta.shapes)) { const sz = s.reduce((a, b) => a * b, 1); P[k] = all.subarray(off, off + sz); off += sz; }
  const x = new Float32Array(3 * 42); for (let i = 0; i < 42; i++) x[42 + i] = 1; x[2*42+5*7+3]=1; x[5*7+2]=1; 
  Object.assign(P, prepare(P)); let r = forward(P, meta.blocks, x, 6, 7, 7); console.log(name, Array.from(r[0]).map(v=>v.toFixed(4)).join(","), r[1]);
  const t = performance.now(); const N = 30; for (let i = 0; i < N; i++) forward(P, meta.blocks, x, 6, 7, 7);
  console.log(name, "ms/eval", ((performance.now() - t) / N).toFixed(2));
}
