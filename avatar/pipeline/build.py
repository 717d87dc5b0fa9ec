"""Assemble the voice loop from the configured stages (models are loaded once and shared)."""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from avatar.frames import SAMPLE_RATE
from avatar.pipeline.heap import settle_heap
from avatar.trace import TRACER, Tracer

log = logging.getLogger(__name__)


@dataclass
class Stages:
    asr: object
    tts: object
    answerer: object
    fallback: object | None
    notices: list[str] = field(default_factory=list)
    # fresh instances for the watchdog to swap in for a hung one (ASR and TTS renew themselves)
    renew: dict[str, Callable[[], object]] = field(default_factory=dict)

    def renewed(self, name: str, fresh: object) -> None:
        """A loop's watchdog replaced a hung stage: a restarted loop starts with the fresh one."""
        if name in ("asr", "tts", "answerer", "fallback"):
            setattr(self, name, fresh)


def load_stages(cfg, tracer: Tracer = TRACER, knowledge: str | None = None,
                progress: Callable[[str], None] = lambda msg: None) -> Stages:
    """Load ASR, TTS and the answerer once, warmed up, so the first visitor waits for nothing.

    With `pipeline.parallel_load` (on by default: docs/PERF.md, cold start) the recognizer (its model checked against the
    manifest, then loaded, then warmed up) and the voices (loaded and warmed up) each get a thread
    of their own while this one loads the answerer (its model checked first; numpy, no torch):
    CTranslate2, hashing and onnxruntime release the GIL, so beside the answerer's Python work they
    cost little wall time. The stages are returned, and so can answer a visitor, only once every thread has
    finished; a thread's error (a damaged model file: ModelError) is raised here, the recognizer's
    first, as in the sequential order."""
    from avatar.answer import make_answerer
    from avatar.tts.synthesizer import Synthesizer

    if not cfg.pipeline.parallel_load:
        return _load_stages_in_turn(cfg, tracer, knowledge, progress)
    notices: list[str] = []
    progress("loading speech recognition, voices and the answerer")
    asr_job = _Job("asr", lambda: _warm(_new_asr(cfg)))
    tts = Synthesizer(cfg.tts)
    _voice_notices(tts, cfg, notices)
    tts_job = _Job("tts", tts.warmup)
    answerer = fallback = None
    failed: BaseException | None = None
    try:
        answerer, fallback = make_answerer(cfg, tracer, knowledge=knowledge, notices=notices, last_good=True)
        if hasattr(answerer, "warmup"):
            answerer.warmup()
    except BaseException as exc:  # raised once the other threads have ended (the recognizer's error first)
        failed = exc
    asr = asr_job.result()
    tts_job.result()
    if failed is not None:
        raise failed
    give_venue_words(asr, cfg, knowledge, answerer, fallback)  # the prompt changes no path the warm-up ran
    renew = {"answerer": lambda: make_answerer(cfg, tracer, knowledge=knowledge, last_good=True)[0]}
    settle_heap()
    return Stages(asr, tts, answerer, fallback, notices, renew)


def _load_stages_in_turn(cfg, tracer: Tracer, knowledge: str | None, progress: Callable[[str], None]) -> Stages:
    """One stage after the other on this thread (`pipeline.parallel_load = false`)."""
    from avatar.answer import make_answerer
    from avatar.tts.synthesizer import Synthesizer

    notices: list[str] = []
    progress("loading speech recognition")
    asr = _new_asr(cfg)
    progress("loading voices")
    tts = Synthesizer(cfg.tts)
    _voice_notices(tts, cfg, notices)
    progress("loading the answerer")
    answerer, fallback = make_answerer(cfg, tracer, knowledge=knowledge, notices=notices, last_good=True)
    give_venue_words(asr, cfg, knowledge, answerer, fallback)
    progress("warming up")
    for stage in (asr, tts, answerer):
        if hasattr(stage, "warmup"):
            stage.warmup()
    renew = {"answerer": lambda: make_answerer(cfg, tracer, knowledge=knowledge, last_good=True)[0]}
    settle_heap()
    return Stages(asr, tts, answerer, fallback, notices, renew)


def prefill_now(stages: Stages, cfg, progress: Callable[[str], None] = lambda msg: None):
    """Prepare the voice's likely replies at once (the state of a kiosk that has been idle for a
    while: avatar/pipeline/reply_prefill.py does it in the background); None with tts.prefill off or
    a voice that cannot. Returns the synthesizer's Prefill report."""
    from avatar.pipeline.reply_prefill import prefill_keys

    if not cfg.tts.prefill or not hasattr(stages.tts, "prefill"):
        return None
    keys = prefill_keys(stages.tts, stages.answerer, cfg.general.languages)
    progress(f"preparing {len(keys)} clauses of the venue's replies")
    return stages.tts.prefill(keys)


def _new_asr(cfg):
    from avatar.asr.whisper_asr import WhisperASR

    return WhisperASR(cfg.asr, list(cfg.general.languages))


def _warm(stage):
    stage.warmup()
    return stage


def _voice_notices(tts, cfg, notices: list[str]) -> None:
    for lang in cfg.general.languages:
        info = tts.voice_for(lang)
        if info is not None and info.fallback:
            notices.append(f"{lang}: no piper or Pico voice, speaking with {info.engine} ({info.name})")


class _Job:
    """`fn()` on a thread of its own; `result()` waits for it and returns its value or raises its error."""

    def __init__(self, name: str, fn: Callable[[], object]) -> None:
        self._value: object = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn,), name=f"load-{name}", daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[[], object]) -> None:
        try:
            self._value = fn()
        except BaseException as exc:  # handed over to the thread that asks for the result
            self._error = exc

    def result(self) -> object:
        self._thread.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self._value


def give_venue_words(asr, cfg, knowledge: str | None = None, *answerers) -> None:
    """The knowledge pack's names and keywords to the recognizer as its prompt (`asr.venue_prompt`).

    The ASR stage never reads packs: the pipeline takes the answerer's pack (or loads it) and
    passes plain word lists per language."""
    if not cfg.asr.venue_prompt or not hasattr(asr, "set_vocabulary"):
        return
    pack = next((a.pack for a in answerers if getattr(a, "pack", None) is not None), None)
    if pack is None:
        try:
            from avatar.answer import load_knowledge

            pack = load_knowledge(cfg, knowledge)
        except Exception:  # no pack, no prompt: recognition works without it
            log.warning("no knowledge pack for the recognizer's venue words", exc_info=True)
            return
    _set_venue_words(asr, cfg, pack)


def _set_venue_words(asr, cfg, pack) -> None:
    from avatar.pipeline.venue_words import venue_words

    asr.set_vocabulary(venue_words(pack, list(cfg.general.languages)))


class PlaylistSource:
    """Several WAV files played one after another as one stream: a visitor asking several questions.

    Like a person, the simulated visitor waits for the avatar to finish (`busy()` false) before
    asking the next question; the gap is silence at real-time pace.
    """

    def __init__(self, sources: Sequence, busy: Callable[[], bool] = lambda: False, gap_s: float = 0.5):
        self.sources = list(sources)
        self.busy = busy
        self.gap_s = gap_s
        self._closed = False

    def frames(self) -> Iterator:
        from dataclasses import replace

        import numpy as np

        from avatar.trace import now, sleep_until

        offset = 0.0
        last = None
        for index, source in enumerate(self.sources):
            if last is not None:  # silence while the avatar answers, then a short gap
                quiet_since = None
                step = len(last.pcm) / SAMPLE_RATE
                while not self._closed:
                    t_audio = last.audio_t + step
                    last = replace(last, pcm=np.zeros_like(last.pcm), t=last.t + step, audio_t=t_audio)
                    sleep_until(last.t + step)
                    yield last
                    if self.busy():
                        quiet_since = None
                    elif quiet_since is None:
                        quiet_since = now()
                    elif now() - quiet_since >= self.gap_s:
                        break
                offset = last.audio_t + step
            for frame in source.frames():
                if self._closed:
                    return
                last = replace(frame, audio_t=frame.audio_t + offset)
                yield last

    def close(self) -> None:
        self._closed = True
        for s in self.sources:
            s.close()


def open_files_source(cfg, inputs: Sequence[str | Path], tail_silence_s: float = 2.0):
    from avatar.audio.source import WavFileSource

    sources = [WavFileSource(p, frame_ms=cfg.audio.frame_ms, realtime=cfg.audio.realtime,
                             tail_silence_s=tail_silence_s) for p in inputs]
    return sources[0] if len(sources) == 1 else PlaylistSource(sources)


def build_voice_loop(cfg, inputs: Sequence[str | Path] | None = None, output: str | Path | None = None,
                     tracer: Tracer = TRACER, stages: Stages | None = None, knowledge: str | None = None,
                     tail_silence_s: float = 2.0, discard_replies: bool = False):
    """The kiosk's voice loop: files when given, the microphone and loudspeaker otherwise.
    discard_replies (no output file): the replies are played in time to no file and no device."""
    from avatar.audio.sink import open_sink
    from avatar.audio.source import open_source
    from avatar.audio.wav_sink import WavFileSink
    from avatar.pipeline.voice_loop import VoiceLoop

    stages = stages or load_stages(cfg, tracer, knowledge)
    source = open_files_source(cfg, inputs, tail_silence_s) if inputs else open_source(None, cfg)
    to_device = not output and not discard_replies
    if to_device:
        sink = open_sink(None, cfg)
    else:
        sink = WavFileSink(str(output) if output else None, output_latency_ms=cfg.audio.output_latency_ms)
    extras = _turn_taking(cfg)
    renew = dict(stages.renew)
    if to_device:  # a hung loudspeaker stream is replaced by a new one (a file sink is never replaced)
        renew["sink"] = lambda: open_sink(None, cfg)
    loop = VoiceLoop(cfg, source, sink, stages.answerer, stages.asr, stages.tts, tracer,
                     fallback_answerer=stages.fallback, echo_canceller=_echo_canceller(cfg, device=to_device),
                     renew=renew, on_renewed=stages.renewed, **extras)
    if isinstance(source, PlaylistSource):
        source.busy = loop.busy
    _follow_knowledge(loop, cfg, knowledge)
    return loop


def _follow_knowledge(loop, cfg, knowledge: str | None) -> None:
    """The loop reads the pack again when the operator edits it (`general.knowledge_check_s`, 0 = never)."""
    every_s = float(cfg.general.knowledge_check_s)
    if every_s <= 0:
        return
    from avatar.answer import load_knowledge
    from avatar.paths import resolve
    from avatar.answer.knowledge import pack_file
    from avatar.pipeline.knowledge_watch import KnowledgeWatch

    def apply(pack) -> bool:
        if not loop.use_pack(pack):
            return False
        if cfg.asr.venue_prompt and hasattr(loop.asr, "set_vocabulary"):
            _set_venue_words(loop.asr, cfg, pack)
        return True

    path = knowledge or cfg.general.knowledge

    def load():
        from avatar.answer.last_good import remember

        pack = load_knowledge(cfg, path)  # an edit with a mistake raises: the pack in use stays
        remember(resolve(path), cfg)  # and this one is now the last good version (answer/last_good.py)
        return pack

    in_use = next((getattr(a.pack, "version", "") for a in (loop.fallback_answerer, loop.answerer)
                   if getattr(a, "pack", None) is not None), "")
    loop.follow_knowledge(KnowledgeWatch(pack_file(resolve(path)), load, apply, loop.emit, every_s=every_s,
                                         in_use=in_use))


def _echo_canceller(cfg, device: bool = False):
    """device: the reply goes to the loudspeaker, whose buffer hands the played signal over ahead of
    time, so the canceller can be fed it early (echo.reference_lead_ms: time stamps jitter)."""
    if not cfg.echo.enabled:
        return None
    try:
        from avatar.aec.echo_canceller import EchoCanceller
    except ImportError:
        return None
    try:
        return EchoCanceller(cfg.echo, reference_lead_ms=float(cfg.echo.reference_lead_ms) if device else 0.0)
    except Exception:  # no canceller is better than no kiosk; doctor reports it
        log.warning("echo canceller unavailable", exc_info=True)
        return None


def _turn_taking(cfg) -> dict:
    extras: dict = {}
    try:
        from avatar.vad.hesitation import end_wait_ms

        extras["hesitation"] = lambda text: end_wait_ms(text, cfg.vad)
    except ImportError:
        pass
    try:
        from avatar.vad.backchannel import backchannel_rule

        extras["backchannel"] = backchannel_rule(cfg.pipeline.barge_in_min_ms)
    except ImportError:
        pass
    return extras
