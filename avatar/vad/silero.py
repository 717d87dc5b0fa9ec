"""Silero VAD v6 (the ONNX file inside faster-whisper), run chunk by chunk with its state carried over.

The model takes 512 new samples at 16 kHz preceded by the last 64 samples of the previous chunk
(input (1, 576)), plus the LSTM state h, c (1, 1, 128); it returns the speech probability and
the new state.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from avatar.errors import ModelError

CHUNK = 512
CONTEXT = 64


def model_path() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("faster_whisper")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("faster-whisper is not installed, so the Silero VAD model is missing",
                         hint="pip install faster-whisper  (or `make` to set up the environment)")
    path = Path(list(spec.submodule_search_locations)[0]) / "assets" / "silero_vad_v6.onnx"
    if not path.is_file():
        raise ModelError(f"the Silero VAD model is missing: {path}", hint="pip install --force-reinstall faster-whisper")
    return path


class SileroVAD:
    def __init__(self, path: Path | None = None):
        import onnxruntime

        opts = onnxruntime.SessionOptions()
        opts.inter_op_num_threads = 1  # 0.1 ms of work per chunk: threads would only add overhead
        opts.intra_op_num_threads = 1
        opts.log_severity_level = 4
        path = path or model_path()
        try:
            self._session = onnxruntime.InferenceSession(str(path), sess_options=opts,
                                                         providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ModelError(f"cannot load the Silero VAD model {path}: {exc}",
                             hint="pip install --force-reinstall faster-whisper") from None
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros((1, 1, 128), np.float32)
        self._c = np.zeros((1, 1, 128), np.float32)
        self._context = np.zeros(CONTEXT, np.float32)

    def __call__(self, chunk: np.ndarray) -> float:
        """Speech probability of 512 samples (int16 or float in [-1, 1])."""
        x = chunk.astype(np.float32) / 32768.0 if chunk.dtype == np.int16 else chunk.astype(np.float32)
        inp = np.concatenate([self._context, x])[None, :]
        prob, self._h, self._c = self._session.run(None, {"input": inp, "h": self._h, "c": self._c})
        self._context = x[-CONTEXT:]
        return float(np.asarray(prob).reshape(-1)[0])
