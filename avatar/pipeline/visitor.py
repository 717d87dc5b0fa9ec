"""The visitor in front of the kiosk: their language and their last turns, forgotten when they leave.

Nothing of a visitor outlives their session: when nobody has spoken or been answered for
`pipeline.visitor_timeout_s`, the voice loop wipes this, the partial transcript, the words in the
turn metrics and the trace, and the answerer's word caches.
"""
from __future__ import annotations

import threading

from avatar.answer_types import HistoryTurn
from avatar.trace import now

LANGUAGES = ("auto", "de", "en")


class VisitorSession:
    def __init__(self, cfg, lock: threading.RLock):
        self.lock = lock
        self.lang = cfg.general.lang  # auto | de | en: the visitor's choice (auto: what they speak)
        self.languages = list(cfg.general.languages)
        self.history_turns = int(cfg.answer.history_turns)
        self.detected = ""  # the language of the last transcript (with lang auto)
        # the language of the previous turn (or the visitor's DE/EN choice): the recognizer's prior
        # for a short utterance whose language it is unsure of
        self.prior_lang = ""
        self.history: list[HistoryTurn] = []
        self.last_activity = now()  # the last speech heard or reply finished

    def choose(self, lang: str) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}")
        self.lang = lang
        if lang in self.languages:
            self.prior_lang = lang  # still the prior if the visitor goes back to auto

    def forced(self) -> str | None:
        """The language every stage must use, None when it is the visitor's to choose by speaking."""
        return None if self.lang == "auto" else self.lang

    def prior(self) -> str | None:
        return self.prior_lang or None

    def current(self) -> str:
        """The language to fail in before a transcript says otherwise (an apology's)."""
        return self.forced() or self.detected or self.languages[0]

    def reply_lang(self, transcript_lang: str) -> str:
        """The reply's language for a transcript in `transcript_lang` (nothing is remembered)."""
        if self.lang == "auto" and transcript_lang in self.languages:
            return transcript_lang
        return self.forced() or self.languages[0]

    def heard(self, transcript_lang: str) -> tuple[str, bool]:
        """A turn in `transcript_lang` was taken (its end confirmed): the reply's language, and whether
        it is a newly detected one (the UI follows it); it becomes the prior of the next turn. Not
        for a speculative transcript whose turn may still be discarded: the visitor who goes on
        speaking must not have a half-heard "Welches Datum" (heard as English) decide the language
        of the whole question."""
        lang = self.reply_lang(transcript_lang)
        changed = self.lang == "auto" and lang != self.detected
        if changed:
            self.detected = lang
        self.prior_lang = lang
        return lang, changed

    def recent(self) -> list[HistoryTurn]:
        """The turns the answerer sees (`answer.history_turns`)."""
        with self.lock:
            return list(self.history[-self.history_turns:])

    def add(self, turn: HistoryTurn) -> None:
        with self.lock:
            self.history.append(turn)
            del self.history[:-max(1, self.history_turns)]

    def touch(self) -> None:
        self.last_activity = now()

    def idle_s(self) -> float:
        return now() - self.last_activity

    def forget(self) -> bool:
        """Wipe the history; the next visitor may speak the other language. True if there was any."""
        with self.lock:
            had = bool(self.history)
            self.history.clear()  # privacy: nothing of a visitor outlives their session
            self.prior_lang = self.forced() or ""
        return had
