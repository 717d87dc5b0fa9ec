"""Speech from a piper voice (ONNX), with phoneme timings for the avatar's mouth when available.

`synthesize(text)` is piper's own whole synthesis; `pieces(text)` streams it (tts.stream): the
voice's graph is cut at load (avatar/tts/piper_stream.py) and a sentence's first ~120 ms are audio
after the encoder and one short decoder window, the rest follows window by window. A voice that
cannot be cut is spoken whole, with a warning in the log.
"""
from __future__ import annotations

import contextlib
import importlib.util
import itertools
import json
import logging
import os
import threading
from pathlib import Path
from typing import Iterator

import numpy as np

from avatar.errors import ModelError
from avatar.tts import graph_cache, visemes
from avatar.tts.voices import VoiceInfo

log = logging.getLogger(__name__)

_LOADED: dict[tuple, object] = {}  # (model path, alignments, threads) -> PiperVoice: loaded once per process
_SPLIT: dict[tuple, object] = {}   # (model path, threads) -> StreamingVoice, or the GraphSplitError that stopped it
_LOAD_LOCK = threading.Lock()
_PEAK = 1.0  # streamed audio cannot be peak-normalised per sentence (its peak comes last): one gain per voice, piper's for the calibration sentence


class PiperEngine:
    def __init__(self, info: VoiceInfo, length_scale: float = 1.0, alignments: bool = True, threads: int = 1,
                 stream: bool = False, stream_first_ms: int = 120, cache_graph: bool = True) -> None:
        # Piper reads phoneme timings from a tensor it exposes by patching the model (needs onnx).
        self.alignments = alignments and importlib.util.find_spec("onnx") is not None
        self.info = info
        # a voice that streams never runs piper's own session (its cut parts hold the weights): made
        # only when it is needed, it saves ~130 MB and its load
        self.voice = _load(info.model, info.config, self.alignments, threads, cache_graph, whole=not stream)
        self.sample_rate = int(self.voice.config.sample_rate)
        from piper.config import SynthesisConfig

        self._syn = SynthesisConfig(length_scale=length_scale)
        self._lock = threading.Lock()  # one ONNX run at a time per voice (the CPU is shared anyway)
        self.streamer = None
        self.stream_problem = ""  # why this voice is spoken whole although tts.stream is on
        if stream:
            self.streamer, self.stream_problem = _load_streamer(info.model, self.voice, threads, cache_graph)
            if self.streamer is None:
                _ready(self.voice, info.model)
        self._first_frames = max(1, round(stream_first_ms / 1000 * self.sample_rate / _hop(self.voice)))

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

    def pieces(self, text: str) -> Iterator[tuple[np.ndarray, list[tuple[float, float, str]]]]:
        """`text` as int16 pieces of audio, each yielded as soon as it exists, with mouth shapes whose
        offsets count from the start of `text` (they may lie ahead of the audio yielded so far).
        A voice without a streamer yields its whole synthesis as one piece."""
        if self.streamer is None:
            yield self.synthesize(text)
            return
        offset = 0.0
        for phonemes in self.voice.phonemize(text):
            if not phonemes:
                continue
            ids = self.voice.phonemes_to_ids(phonemes)
            with self._lock:
                latent, mask, durations = self.streamer.front(ids, self._scales(), self._speaker())
            duration = latent.shape[2] * self.streamer.hop / self.sample_rate
            track = self._stream_visemes(phonemes, ids, durations, duration)
            # the first window holds stream_first_ms of speech: the voice's leading silence (BOS and its
            # pad) is trimmed away, and the next window must be ready before the speech has played
            lead = int(np.sum(durations[:2])) if durations is not None and offset == 0 else 0
            windows = self.streamer.stream(latent, mask, self._first_frames + lead)
            while True:
                with self._lock:
                    audio = next(windows, None)
                if audio is None:
                    break
                yield _int16(audio * self.streamer.gain), [(o + offset, d, v) for o, d, v in track]
                track = []
            offset += duration

    def _scales(self) -> np.ndarray:
        c, s = self.voice.config, self._syn
        pick = lambda mine, theirs: theirs if mine is None else mine  # noqa: E731
        return np.array([pick(s.noise_scale, c.noise_scale), pick(s.length_scale, c.length_scale),
                         pick(s.noise_w_scale, c.noise_w_scale)], np.float32)

    def _speaker(self) -> int | None:
        return self._syn.speaker_id if self._syn.speaker_id is not None else getattr(self.voice.config, "default_speaker_id", None)

    def _stream_visemes(self, phonemes: list[str], ids: list[int], durations, duration: float):
        timed = None
        if self.alignments and durations is not None:
            timed = _timed_phonemes(self.voice.config.phoneme_id_map, phonemes, ids, durations,
                                    self.streamer.hop, self.sample_rate)
        if timed:
            return visemes.from_timed_phonemes(timed, duration)
        return visemes.from_phonemes(phonemes, duration)

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


def _timed_phonemes(id_map: dict, phonemes: list[str], ids: list[int], frames, hop: int, rate: int):
    """(phoneme, start s, duration s) from the frames per phoneme id: piper's ids are BOS, then each
    phoneme's ids followed by the pad id, then EOS; a phoneme lasts as long as its ids and its pad.
    None when the ids do not follow that pattern."""
    from piper.const import BOS, EOS, PAD

    pad = list(id_map.get(PAD, []))
    timed, i, t = [], 0, 0.0
    for phoneme in itertools.chain([BOS], phonemes, [EOS]):
        own = list(id_map.get(phoneme, [])) + (pad if phoneme != EOS else [])
        if ids[i:i + len(own)] != own:
            return None
        d = float(np.sum(frames[i:i + len(own)])) * hop / rate
        timed.append((phoneme, t, d))
        t, i = t + d, i + len(own)
    return timed if i == len(ids) else None


def _int16(audio: np.ndarray) -> np.ndarray:
    return (np.clip(audio, -1.0, 1.0) * 32767).astype(np.int16)


def _load(model: Path | None, config: Path | None, alignments: bool, threads: int, cache_graph: bool = True,
          whole: bool = True):
    """The voice, loaded once per process; `whole`: its session for piper's whole synthesis made now
    (else on first use), so that a damaged voice file is reported at load."""
    key = (str(model), alignments, threads)
    with _LOAD_LOCK:
        voice = _LOADED.get(key)
        if voice is None:
            if model is None or not Path(model).exists():
                raise ModelError(f"piper voice model not found: {model}",
                                 hint="reinstall the voice package or put *.onnx + *.onnx.json into models/")
            with _model_errors(model):
                voice = _open_voice(Path(model), Path(config) if config else Path(f"{model}.json"), alignments,
                                    threads, cache_graph)
            _LOADED[key] = voice
    if whole:
        _ready(voice, model)
    return voice


def _ready(voice, model) -> None:
    """Make the voice's whole-synthesis session now, with a clear error when the voice does not load."""
    with _model_errors(model):
        voice.session.ready()


@contextlib.contextmanager
def _model_errors(model):
    try:
        yield
    except ImportError as exc:
        raise ModelError(f"piper-tts is not installed ({exc})", hint="pip install piper-tts") from None
    except Exception as exc:  # a truncated or foreign .onnx file: say which one
        raise ModelError(f"cannot load piper voice {model}: {exc}",
                         hint="the file may be corrupt; download or copy the voice again") from None


class _LazySession:
    """piper's onnxruntime session, made on its first use (PiperVoice only calls `run`)."""

    def __init__(self, make) -> None:
        self._make = make
        self._session = None
        self._lock = threading.Lock()

    def ready(self):
        with self._lock:
            if self._session is None:
                self._session = self._make()
            return self._session

    def run(self, *args, **kwargs):
        return self.ready().run(*args, **kwargs)


def _load_streamer(model: Path, voice, threads: int, cache: bool = True):
    """(StreamingVoice, "") for a voice whose graph cuts cleanly, else (None, why): cut once per process,
    and kept under the models folder for the next start (the check included: the same graphs on the
    same onnxruntime and CPU give the same windows)."""
    key = (str(model), threads)
    with _LOAD_LOCK:
        if key not in _SPLIT:
            entry = _stream_entry(Path(model)) if cache else None
            found = _cached_streamer(entry, voice, threads) if entry is not None else None
            _SPLIT[key] = found or _cut(Path(model), voice, threads, entry)
        found = _SPLIT[key]
    if isinstance(found, Exception):
        return None, str(found)
    return found, ""


def _cut(model: Path, voice, threads: int, entry: tuple[Path, dict] | None = None):
    from avatar.tts.piper_stream import CALIBRATION_TEXT, GraphSplitError, StreamingVoice, check_windows, split_voice

    saved: dict[str, Path] = {}  # part -> its optimized graph, written beside the cache entry
    caching = [entry is not None]  # off for good once one part cannot be written

    def session(name: str, graph: bytes):
        if caching[0]:
            try:
                entry[0].mkdir(parents=True, exist_ok=True)
                saved[name] = graph_cache.partial(entry[0] / f"{name}.onnx")
                return _session(graph, threads, save_to=saved[name])
            except Exception as exc:  # a read-only models folder: cut again next time (a part that
                log.info("cannot cache the cut voice %s: %s", model.name, exc)  # onnxruntime refuses fails below)
                caching[0] = False
        return _session(graph, threads)

    try:
        import onnx

        parts = split_voice(onnx.load(str(model)))
        streamer = StreamingVoice(parts, session, _hop(voice))
        ids = voice.phonemes_to_ids(voice.phonemize(CALIBRATION_TEXT)[0])
        scales = np.array([voice.config.noise_scale, voice.config.length_scale, voice.config.noise_w_scale], np.float32)
        snr, peak = check_windows(streamer, ids, scales, first=10)
    except ImportError as exc:
        problem = GraphSplitError(f"streaming needs the onnx package ({exc})")
    except GraphSplitError as exc:
        problem = exc
    except Exception as exc:  # onnxruntime refusing a sub-graph is a failed cut too, not a failed voice
        problem = GraphSplitError(f"{type(exc).__name__}: {exc}")
    else:
        streamer.gain = _PEAK / max(peak, 1e-3)
        log.info("piper voice %s streams (windows vs whole: SNR %.0f dB)", model.name, snr)
        if caching[0] and len(saved) == len(_STREAM_PARTS):
            _save_streamer(entry, saved, streamer, snr)
        return streamer
    finally:
        for tmp in saved.values():
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
    log.warning("piper voice %s is spoken whole, not streamed: %s", model.name, problem)
    return problem


def _hop(voice) -> int:
    return int(getattr(voice.config, "hop_length", 256) or 256)


_STREAM_PARTS = ("front", "flow", "decoder")


def _stream_entry(model: Path) -> tuple[Path, dict] | None:
    """(the cache folder of the voice's cut graph, its key): the cut and the window check depend on the
    voice, onnxruntime, the CPU and the contexts the windows are decoded with."""
    from avatar.tts import piper_stream

    return graph_cache.entry(model, "stream", flow_context=piper_stream.FLOW_CONTEXT,
                             decoder_context=piper_stream.DECODER_CONTEXT, min_snr_db=piper_stream.MIN_SNR_DB,
                             calibration=piper_stream.CALIBRATION_TEXT)


def _save_streamer(entry: tuple[Path, dict], saved: dict[str, Path], streamer, snr: float) -> None:
    folder, key = entry
    try:
        files = {name: folder / f"{name}.onnx" for name in _STREAM_PARTS}
        for name in _STREAM_PARTS:
            os.replace(saved[name], files[name])
        p = streamer.parts
        graph_cache.write(folder / "meta.json", key, files, gain=streamer.gain, snr_db=snr, latent=p.latent,
                          mask=p.mask, frames=p.frames, durations=p.durations)
    except OSError as exc:
        log.info("cannot cache the cut voice %s: %s", folder.name, exc)


def _cached_streamer(entry: tuple[Path, dict], voice, threads: int):
    """The StreamingVoice from the cached cut when its key and every part's sha256 match, else None."""
    from avatar.tts.piper_stream import StreamingVoice, VoiceParts

    folder, key = entry
    found = graph_cache.read(folder / "meta.json", key, {name: folder / f"{name}.onnx" for name in _STREAM_PARTS})
    if found is None:
        return None
    meta, data = found
    try:
        parts = VoiceParts(data["front"], data["flow"], data["decoder"], str(meta["latent"]), str(meta["mask"]),
                           str(meta["frames"]), meta["durations"] if meta.get("durations") else None)
        gain = float(meta["gain"])
        if not np.isfinite(gain) or gain <= 0:
            raise ValueError(f"gain {gain}")
        streamer = StreamingVoice(parts, lambda name, graph: _session(graph, threads, optimized=True), _hop(voice))
    except Exception as exc:  # onnxruntime refusing a part, or metadata of another shape: cut the voice again
        log.warning("the cached cut of voice %s does not load (%s): cutting the voice again", folder.name, exc)
        return None
    streamer.gain = gain
    log.info("piper voice %s streams (cut loaded from %s)", folder.name, folder)
    return streamer


def _session(model_or_bytes, threads: int, save_to: Path | None = None, optimized: bool = False):
    """An onnxruntime session whose threads sleep instead of spinning while they wait: on a kiosk CPU
    shared with ASR and the language model, spinning threads halved our speed. `save_to`: write the
    optimized graph there; `optimized`: the graph given is one such, so it is not optimized again."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    if save_to is not None:
        options.optimized_model_filepath = str(save_to)
        # onnxruntime warns that the saved graph may hold this CPU's layouts: the cache's key has the CPU
        options.log_severity_level = 3
    if optimized:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    if threads > 0:
        options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # No memory arena: onnxruntime's arena grows to the longest piece ever synthesized and never
    # gives it back (one English voice: 306 -> 959 MB over 400 pieces; without it 279 -> 213 MB),
    # which is most of the kiosk's growth over a day. It costs ~1.5% on a first breath and ~10% on a
    # long clause, which is synthesized while the one before it plays (docs/PERF.md, issue 13).
    options.enable_cpu_mem_arena = False
    return onnxruntime.InferenceSession(model_or_bytes, sess_options=options, providers=["CPUExecutionProvider"])


def _open_voice(model: Path, config: Path, alignments: bool, threads: int, cache: bool = True):
    """PiperVoice.load, with our session (see _session), made on first use; its optimized graph is cached
    (_voice_session)."""
    from piper.config import PiperConfig
    from piper.voice import PiperVoice

    session = _LazySession(lambda: _voice_session(model, alignments, threads, cache))
    return PiperVoice(config=PiperConfig.from_dict(json.loads(config.read_text(encoding="utf-8"))), session=session)


def _voice_graph(model: Path, alignments: bool) -> str | bytes:
    """The voice's graph as onnxruntime loads it: the file, or with the alignment output patched in."""
    if alignments:
        import onnx
        from piper.patch_voice_with_alignment import add_alignment_output

        graph = onnx.load(str(model))
        try:
            add_alignment_output(graph)
            return graph.SerializeToString()
        except ValueError:  # already patched on disk, or no tensor to expose: use the file as it is
            pass
    return str(model)


# --- the optimized graph, cached (avatar/tts/graph_cache.py) ----------------------------------
CACHE_DIR = graph_cache.CACHE_DIR


def _voice_session(model: Path, alignments: bool, threads: int, cache: bool = True):
    entry = _cache_entry(model, alignments) if cache else None
    if entry is not None:
        session = _cached_session(entry, threads)
        if session is not None:
            return session
    graph = _voice_graph(model, alignments)
    if entry is None:
        return _session(graph, threads)
    target, key = entry
    tmp = graph_cache.partial(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        session = _session(graph, threads, save_to=tmp)
        os.replace(tmp, target)
        graph_cache.write(target.with_suffix(".json"), key, {"graph": target})
        return session
    except Exception as exc:  # a read-only models folder (or a voice that does not load: it fails again below)
        log.info("cannot cache the optimized voice %s: %s", model.name, exc)
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
    return _session(graph, threads)  # the graph is optimized again next time


def _cache_entry(model: Path, alignments: bool) -> tuple[Path, dict] | None:
    """(cached graph file, the key it must have been made with), or None when there is no voice file."""
    found = graph_cache.entry(model, "voice", alignments=bool(alignments))
    return None if found is None else (found[0].with_suffix(".onnx"), found[1])


def _cached_session(entry: tuple[Path, dict], threads: int):
    """A session from the cached graph when its key and sha256 match, else None (it is made again)."""
    target, key = entry
    found = graph_cache.read(target.with_suffix(".json"), key, {"graph": target})
    if found is None:
        return None
    try:
        return _session(found[1]["graph"], threads, optimized=True)
    except Exception as exc:  # onnxruntime refusing it: the voice file itself is the reference
        log.warning("the cached optimized voice %s does not load (%s): optimizing the voice again", target, exc)
        return None
