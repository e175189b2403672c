"""Write the folded weights (numpy_params, as export-kaggle folds them) and the ONNX file of the two shipped networks
to /tmp, for forward.js (a hand-written JavaScript forward) and ort_web.mjs (onnxruntime-web), both run in node."""

import json

import numpy as np
import torch

from alphazero_lib.kaggle.submission import numpy_params
from alphazero_lib.pretrained import load_pretrained

for name in ("connect_four", "connect_four_fast"):
    m = load_pretrained(name)
    p = numpy_params(m)
    meta = {k: list(v.shape) for k, v in p.items()}
    np.concatenate([v.ravel() for v in p.values()]).astype(np.float32).tofile(f"/tmp/{name}.bin")
    json.dump({"shapes": meta, "blocks": len(m.back_bone)}, open(f"/tmp/{name}.json", "w"))
    x = np.zeros((1, 3, 6, 7), np.float32)
    x[0, 1] = 1
    x[0, 2, 5, 3] = 1
    x[0, 0, 5, 2] = 1
    logits, value = m.predict(x)
    print(name, logits.round(4).tolist(), value.tolist())
    torch.onnx.export(m, (torch.as_tensor(x),), f"/tmp/{name}.onnx", input_names=["encoded"],
                      output_names=["policy", "value"], dynamo=False)  # fmt: skip
