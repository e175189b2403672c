"""Your agent in any browser: the network as an ONNX file, and a static page that searches as ``alphazero:W:N`` does.

- ``onnx_export``: ``export_onnx`` (``torch.onnx``) and ``OnnxNetwork`` (onnxruntime behind ``evaluate``);
- ``page``: ``export_web``, the folder that ``python -m alphazero_lib export-web`` writes: the page (``static/``),
  the ONNX file and onnxruntime-web's files, to open through any static file server.

A package of its own, not part of ``alphazero_lib.kaggle``: the page plays Tic-Tac-Toe as well as Connect Four and
needs nothing of kaggle-environments; its HTML, JavaScript and CSS are package data under ``static/``.
"""
