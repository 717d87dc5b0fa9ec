"""The turns in flight: each attempt at answering an utterance is a `TurnJob` on its own worker thread.

A job starts at the endpointer's tentative end (speculative) or at the end of turn; a speculative
one is confirmed at the end of turn, cancelled when the visitor resumes, superseded by the next
one. `TurnJobs` keeps the newest job (`pending`) and the one the visitor hears or waits for
(`active`); the capture thread, the partial-transcript thread and the turns share its lock.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from avatar.asr.incremental import Commit
from avatar.cancel import CancelToken
from avatar.trace import now


@dataclass
class TurnJob:
    """One attempt at answering one utterance (speculative until the end of turn is confirmed)."""
    id: int
    audio: np.ndarray
    speech_end: float  # clock time of the last speech sample (endpointer's estimate)
    started: float  # clock time work started (tentative_end or end_of_turn)
    speculative: bool
    token: CancelToken = field(default_factory=CancelToken)
    confirmed: threading.Event = field(default_factory=threading.Event)
    marks: dict[str, float] = field(default_factory=dict)
    finished: threading.Event = field(default_factory=threading.Event)
    playing: bool = False
    thread: threading.Thread | None = None
    commit: Commit | None = None  # incremental recognition: the words confirmed when the job started
    first_prepared: bool = False  # the reply's first audio was prepared ahead (tts.prefill) or replayed
    asr_info: dict = field(default_factory=dict)  # how its final transcript was made (path, fallback, ...)
    barge_in: bool = False  # its utterance stopped a reply: the visitor took the floor and must hear back
    heard_lang: str = ""  # its final transcript's language, the visitor's once the turn is confirmed


class TurnJobs:
    def __init__(self, lock: threading.RLock):
        self.lock = lock
        self.pending: TurnJob | None = None  # the newest job (speculative or confirmed)
        self.active: TurnJob | None = None  # the job the visitor hears or waits for
        self._next_turn = 1
        self._jobs: list[TurnJob] = []

    def start(self, audio: np.ndarray, speech_end: float, speculative: bool, commit: Commit | None,
              run: Callable[[TurnJob], None], barge_in: bool = False) -> TurnJob:
        """A new job for the utterance so far, on its own thread (`run(job)`); an unconfirmed older
        one is superseded."""
        old = self.pending
        if old is not None and not old.confirmed.is_set():
            old.token.cancel("superseded")
        job = TurnJob(id=self._next_turn, audio=audio, speech_end=speech_end, started=now(), speculative=speculative,
                      commit=commit, barge_in=barge_in)
        self._next_turn += 1
        if not speculative:
            job.confirmed.set()
            job.marks["end_of_turn"] = job.started
        job.thread = threading.Thread(target=run, args=(job,), name=f"turn-{job.id}", daemon=True)
        self.pending = job
        # finished turns are dropped: they hold the visitor's audio, which must not outlive the visit
        self._jobs = [j for j in self._jobs if not j.finished.is_set()] + [job]
        job.thread.start()
        return job

    def discard_speculation(self) -> TurnJob | None:
        """The visitor resumed: the unconfirmed speculative job (if any) is cancelled and returned."""
        job = self.pending
        if job is None or not job.speculative or job.confirmed.is_set():
            return None
        job.token.cancel("resumed")
        self.pending = None
        return job

    def confirm(self) -> TurnJob | None:
        """The end of turn: the pending job, if one is still waiting for it, becomes the active one."""
        job = self.pending
        if job is None or job.token.cancelled or job.confirmed.is_set():
            return None
        job.marks["end_of_turn"] = now()
        job.confirmed.set()
        self.active = job
        return job

    def reply_in_progress(self) -> bool:
        job = self.active
        return job is not None and not job.finished.is_set()

    def final_running(self) -> bool:
        """The newest job is still transcribing or answering (not yet playing)."""
        job = self.pending
        return job is not None and not job.finished.is_set() and not job.playing

    def working(self) -> bool:
        with self.lock:
            return any(not job.finished.is_set() and not job.token.cancelled for job in self._jobs)

    def cancel_all(self, reason: str) -> None:
        with self.lock:
            for job in self._jobs:
                job.token.cancel(reason)

    def threads(self) -> list[threading.Thread]:
        return [job.thread for job in self._jobs if job.thread is not None]

    def wait(self, drain: bool, deadline: float | None) -> None:
        """Until every job has finished (drain) or its reply's first sample was audible."""
        for job in list(self._jobs):
            left = None if deadline is None else max(0.0, deadline - now())
            if drain:
                job.finished.wait(left)
            else:  # benches only need the first audible sample of each reply
                while not job.finished.is_set() and "audible" not in job.marks:
                    if deadline is not None and now() > deadline:
                        break
                    job.finished.wait(0.01)
