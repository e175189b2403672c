// HWC layout: x[cell*cin + c]; weights transposed to wt[((k*cin)+c)*cout + o], k = ky*3+kx
function transpose(w, cout, cin) { const t = new Float32Array(w.length);
  for (let o = 0; o < cout; o++) for (let c = 0; c < cin; c++) for (let k = 0; k < 9; k++) t[(k * cin + c) * cout + o] = w[(o * cin + c) * 9 + k];
  return t; }
function conv3x3(x, cin, R, C, wt, b, cout, relu, residual) {
  const out = new Float32Array(R * C * cout);
  for (let r = 0; r < R; r++) for (let cc = 0; cc < C; cc++) {
    const p = (r * C + cc) * cout;
    for (let o = 0; o < cout; o++) out[p + o] = b[o];
    for (let ky = 0; ky < 3; ky++) { const rr = r + ky - 1; if (rr < 0 || rr >= R) continue;
      for (let kx = 0; kx < 3; kx++) { const c2 = cc + kx - 1; if (c2 < 0 || c2 >= C) continue;
        const q = (rr * C + c2) * cin, kb = (ky * 3 + kx) * cin;
        for (let c = 0; c < cin; c++) { const xv = x[q + c]; if (xv === 0) continue;
          const wb = (kb + c) * cout;
          for (let o = 0; o < cout; o++) out[p + o] += xv * wt[wb + o]; } } }
    if (residual) for (let o = 0; o < cout; o++) out[p + o] += residual[p + o];
    if (relu) for (let o = 0; o < cout; o++) if (out[p + o] < 0) out[p + o] = 0;
  }
  return out;
}
function prepare(P, blocks) { const T = {}; for (const k of Object.keys(P)) {
  if (k.endsWith(".w") && !k.includes("linear")) { const b = P[k.slice(0, -2) + ".b"]; const cout = b.length, cin = P[k].length / (9 * cout); T[k] = transpose(P[k], cout, cin); } else T[k] = P[k]; } return T; }
function forward(P, blocks, x, R, C, A) { // x planes [3][R*C] -> HWC
  const n = R * C; const H = P["start.b"].length; const xi = new Float32Array(n * 3);
  for (let c = 0; c < 3; c++) for (let i = 0; i < n; i++) xi[i * 3 + c] = x[c * n + i];
  let h = conv3x3(xi, 3, R, C, P["start.w"], P["start.b"], H, true);
  for (let i = 0; i < blocks; i++) {
    const t = conv3x3(h, H, R, C, P[`block${i}.conv1.w`], P[`block${i}.conv1.b`], H, true);
    h = conv3x3(t, H, R, C, P[`block${i}.conv2.w`], P[`block${i}.conv2.b`], H, true, h);
  }
  const heads = [];
  for (const [name, k, outn] of [["policy", 32, A], ["value", 3, 1]]) {
    const f = conv3x3(h, H, R, C, P[`${name}.conv.w`], P[`${name}.conv.b`], k, true);
    const W = P[`${name}.linear.w`], B = P[`${name}.linear.b`], y = new Float64Array(outn);
    for (let a = 0; a < outn; a++) { let s = B[a]; const wb = a * k * n; for (let c = 0; c < k; c++) for (let i = 0; i < n; i++) s += W[wb + c * n + i] * f[i * k + c]; y[a] = s; }
    heads.push(y);
  }
  return [heads[0], Math.tanh(heads[1][0])];
}
module.exports = { forward, prepare };
