"""The loop's stages, each behind the watchdog (stage_call.py), and the fallback answerer.

These are the instances in use now: a stage whose call hung is replaced by a fresh one built by
`renew[key]` (default: the instance's own renew(), if it has one), and whoever shares the
instance hears of it through `on_renewed(key, fresh)`. When the answerer (the diffusion LM) hangs
or fails, the fallback answerer (retrieval) answers the turn instead.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from avatar import events as ev
from avatar.answer_types import Answer, HistoryTurn
from avatar.cancel import Cancelled, CancelToken
from avatar.pipeline.contracts import EchoCanceller, check_answer
from avatar.pipeline.stage_call import WatchedStage, checked_timeout
from avatar.trace import Tracer, now


class LoopStages:
    def __init__(self, cfg, *, asr, answerer, tts, sink, fallback=None, echo_canceller: EchoCanceller | None = None,
                 renew: dict[str, Callable[[], Any]] | None = None,
                 on_renewed: Callable[[str, Any], None] | None = None, tracer: Tracer,
                 emit: Callable[[ev.Event], None]):
        self.timeout_s = checked_timeout(cfg.pipeline.stage_timeout_s)
        self.tracer = tracer
        self.emit = emit
        renew = renew or {}

        def watched(name: str, key: str, instance) -> WatchedStage:
            def told(fresh) -> None:
                if key == "sink" and echo_canceller is not None:
                    fresh.add_listener(echo_canceller.add_reference)  # the canceller hears the new one
                if on_renewed is not None:
                    on_renewed(key, fresh)

            return WatchedStage(name, instance, self.timeout_s, renew=renew.get(key), on_renewed=told, tracer=tracer)

        self.asr = watched("asr", "asr", asr)
        self.answerer = watched("answer", "answerer", answerer)
        self.fallback = watched("answer-fallback", "fallback", fallback) if fallback else None
        self.tts = watched("tts", "tts", tts)
        self.out = watched("output", "sink", sink)
        if echo_canceller is not None:
            sink.add_listener(echo_canceller.add_reference)

    @property
    def sink(self):
        return self.out.instance

    def settle(self, timeout: float) -> list[str]:
        """Wait for every stage's calls still running; the names of the threads still running after."""
        deadline = now() + timeout
        stages = (self.asr, self.answerer, self.fallback, self.tts, self.out)
        return [name for stage in stages if stage is not None for name in stage.settle(max(0.0, deadline - now()))]

    def answer(self, question: str, lang: str, history: list[HistoryTurn], token: CancelToken, turn: int) -> Answer:
        """The answerer's reply; when it hangs or fails, the fallback answerer's (if there is one)."""
        def ask(answerer) -> Answer:
            return answerer.answer(question, lang, history, cancel=token, turn=turn)

        try:
            with self.tracer.span("answer_total", turn=turn, track="answerer"):
                # with a fallback, a fresh answerer still loading is not waited for
                answer = self.answerer.call(ask, token, wait_fresh=self.fallback is None)
                check_answer(answer)
                return answer
        except Exception as exc:
            if isinstance(exc, Cancelled) or self.fallback is None:
                raise
            # the diffusion answerer hung or failed: the retrieval answerer is the safe fallback
            self.tracer.instant("answer_fallback", turn=turn, error=type(exc).__name__)
            self.emit(ev.StageError(now(), stage="answer", message=str(exc), restarted=True))
            answer = self.fallback.call(ask, token)
            check_answer(answer, "answer-fallback")
            return replace(answer, checks=replace(answer.checks, fallback_used=True,
                                                  fallback_reason=type(exc).__name__))
