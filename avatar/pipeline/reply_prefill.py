"""The replies the kiosk is likely to say, synthesized while nobody is talking to it (`tts.prefill`).

Most replies at a venue are one of its facts word for word, or one of the answerer's fixed lines
(the decline, small talk). A piper voice needs tens of milliseconds before its first audio (a
streamed clause's first window); a clause synthesized ahead starts at once. The kiosk has idle
time between visitors, so this thread spends it on the clauses of those replies
(`answerer.usual_replies(lang)`, `Synthesizer.prefill_keys` / `prefill`).

It never competes with a visitor: it synthesizes only while the loop is idle (no speech, no turn
in flight, nothing playing) and has been for IDLE_S, and asks again between a clause's pieces, so
a visitor who starts to speak stops it within one streamed window (~30 ms of synthesis); the clause
it was on is dropped and made later. It asks the answerer again every REFRESH_S (today's opening
hours change at midnight) and at once when the operator's edited pack goes into use (`refresh()`);
clauses no longer listed are let go. A TTS instance the watchdog replaced starts empty and is filled
again the same way. Nothing of a visitor is involved: the texts are the venue's and the answerer's.
"""
from __future__ import annotations

import logging
import threading
from typing import Callable, Iterable, Sequence

from avatar.trace import Tracer, now

log = logging.getLogger(__name__)

IDLE_S = 1.0       # the loop must have been idle this long before a clause is synthesized
POLL_S = 0.25      # how often an unfinished prefill looks whether the loop is idle again
REFRESH_S = 600.0  # the answerer's lines are asked for again this often
RETRY_S = 30.0     # after a synthesis error, the next try


def usual_lines(answerer, languages: Sequence[str]) -> list[tuple[str, str]]:
    """(lang, text) of what `answerer` says word for word (its `usual_replies`), or nothing for an
    answerer that does not say (a stand-in in tests, a demo)."""
    usual = getattr(answerer, "usual_replies", None)
    if usual is None:
        return []
    lines = []
    for lang in languages:
        try:
            lines += [(lang, text) for text in usual(lang)]
        except Exception:  # a pack that cannot render a fact must not stop the kiosk, only its prefill
            log.warning("prefill: the answerer's replies in %s could not be listed", lang, exc_info=True)
    return lines


def prefill_keys(tts, answerer, languages: Sequence[str]) -> list:
    """The clauses `tts` would prepare for what `answerer` says word for word."""
    return tts.prefill_keys(usual_lines(answerer, languages))


class ReplyPrefill:
    """The thread that keeps the TTS's prefill up to date (see the module docstring)."""

    def __init__(self, tts: Callable[[], object], answerer: Callable[[], object], languages: Iterable[str],
                 idle: Callable[[], bool], stopping: threading.Event, tracer: Tracer, *,
                 idle_s: float = IDLE_S, refresh_s: float = REFRESH_S):
        self._tts = tts            # the TTS instance in use now (the watchdog may replace it)
        self._answerer = answerer  # the answerer in use now
        self._languages = tuple(languages)
        self._idle = idle
        self._stopping = stopping
        self._tracer = tracer
        self._idle_s = idle_s
        self._refresh_s = refresh_s
        self._wake = threading.Event()
        self._stale = True         # the lines must be asked for again
        self._busy_at = now()      # when the loop was last seen busy
        self.thread: threading.Thread | None = None
        self.last = None           # the last Prefill report (for tests and the log)

    def start(self) -> None:
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="reply-prefill", daemon=True)
            self.thread.start()

    def refresh(self) -> None:
        """The answerer's lines changed (a new pack): list them again and fill what is missing."""
        self._stale = True
        self._wake.set()

    def stop(self) -> None:
        self._wake.set()

    # -- the thread ----------------------------------------------------------------------------
    def _quiet(self) -> bool:
        """Idle now and for idle_s (the next visitor's first words would find the CPU free)."""
        if self._stopping.is_set():
            return False
        if not self._idle():
            self._busy_at = now()
            return False
        return now() - self._busy_at >= self._idle_s

    def _run(self) -> None:
        keys: list = []
        tts_seen = None
        asked_at = -self._refresh_s
        while not self._stopping.is_set():
            tts = self._tts()
            if not hasattr(tts, "prefill"):
                return  # a stand-in voice (tests, demo): nothing to prepare
            if self._stale or tts is not tts_seen or now() - asked_at >= self._refresh_s:
                self._stale, asked_at = False, now()
                keys = prefill_keys(tts, self._answerer(), self._languages)
                tts_seen = tts
            if not self._quiet():
                self._wake.wait(POLL_S)
                self._wake.clear()
                continue
            t0 = now()
            try:
                report = tts.prefill(keys, stop=lambda: not self._quiet())
            except Exception:  # a voice that fails here fails a turn too, where it is reported
                log.warning("prefill: synthesis failed; trying again later", exc_info=True)
                self._wake.wait(RETRY_S)
                self._wake.clear()
                continue
            self.last = report
            if report.made:
                self._tracer.record("tts.prefill_run", t0, track="tts", made=report.made, held=report.held,
                                    wanted=report.wanted, stopped=report.stopped, full=report.full)
                log.info("prefill: %d of %d clauses ready (%d new)%s", report.held, report.wanted, report.made,
                         ", stopped for a visitor" if report.stopped else "")
            if report.stopped:
                continue
            # everything listed is ready: sleep until the lines change, the refresh time, or a new voice
            self._wake.wait(max(POLL_S, min(self._refresh_s - (now() - asked_at), 5.0)))
            self._wake.clear()
