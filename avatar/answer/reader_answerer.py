"""The reader answerer: retrieval finds the facts, the e5 reader answers in its own words, the checks verify.

One answer path around the model (issue 36): retrieval (with the asked day's hours and the subject
kept from the visit's last turn, as DiffusionAnswerer retrieves), then the reader (avatar/llm/
e5_reader.py) reads the facts with the question and the visit's last turn and decodes a reply, and
the checks (grounding, relevance, schema, wrong decline, wrong source, a second decode in another
unmasking order) verify it. Only a failed check falls back to what the retrieval answerer says.
There is no familiarity gate: the reader is asked every answerable question. A decode over the
budget (`llm.max_ms`) is given up for the retrieval answer, as before.
"""
from __future__ import annotations

import re
from typing import Sequence

from avatar.answer.base import Fact, HistoryTurn
from avatar.answer.diffusion_answerer import DiffusionAnswerer
from avatar.cancel import NEVER, CancelToken
from avatar.model_contract import DECLINE, is_decline
from avatar.trace import TRACER, Tracer

_DECLINE_START = {"de": ("Das weiß ich leider nicht", "Das kann ich Ihnen leider nicht sagen", "Leider"),
                  "en": ("Sorry, I don't know", "I'm afraid", "Sorry")}


class ReaderAnswerer(DiffusionAnswerer):
    """DiffusionAnswerer's retrieval, checks and fallbacks around the e5 reader instead of the
    record-infilling model; see the module docstring."""

    def __init__(self, cfg, pack, tracer: Tracer = TRACER, reader=None):
        from avatar.answer.retrieval import retriever_for
        from avatar.answer.retrieval_answerer import RetrievalAnswerer
        from avatar.llm.e5_reader import load_reader
        from avatar.llm.engine import DecodeOptions

        self.cfg, self.pack, self.tracer = cfg, pack, tracer
        from avatar.answer.retrieval.semantic import model_file

        self.reader = reader or load_reader(cfg.llm.model, model_file, threads=cfg.llm.threads, listed_only=True)
        self.options = DecodeOptions.from_config(cfg.llm)
        self.retriever = retriever_for(pack, cfg)
        self.skills = RetrievalAnswerer(pack, cfg, tracer)
        self.special_ids = frozenset({self.reader.tok.eos})

    def use_pack(self, pack) -> None:
        super().use_pack(pack)
        self.reader.forget_facts()

    @staticmethod
    def familiarity(facts: Sequence[Fact]) -> float | None:
        return None  # no gate: the reader reads every pack

    def decode_candidate(self, question: str, lang: str, facts: Sequence[Fact], history: Sequence[HistoryTurn] = (),
                         variant: int = 0, banned_token_ids: Sequence[int] = (), cancel: CancelToken = NEVER):
        from avatar.answer.checks.candidate import Candidate

        turns = [(h.question, h.reply) for h in history if h.lang == lang][-1:]
        order = "confidence" if variant == 0 else "left_to_right" if variant == 1 else "random"
        result = self.reader.read([f.text for f in facts], question, turns, threshold=self.options.threshold,
                                  banned_ids=banned_token_ids, order=order, seed=variant,
                                  max_ms=self.options.max_ms, cancel=cancel)
        text = _tidy(result.text)
        mood = "sorry" if _reads_as_decline(text, lang) else "neutral"
        conf = result.confidence
        info = {"steps": result.steps, "tokens": len(result.ids), "ms": round(result.ms, 2), "variant": variant,
                "well_formed": bool(text), "facts_ms": round(result.fact_ms, 2),
                "min_confidence": round(min(conf), 3) if conf else 0.0,
                "mean_confidence": round(sum(conf) / len(conf), 3) if conf else 0.0}
        return Candidate(text=text, lang=lang, mood=mood, token_ids=list(result.ids), decode_info=info, variant=variant)

    def banned_ids(self, checks, banned: frozenset, allowed: list[str], lang: str) -> tuple[int, ...]:
        words_banned = set(banned - {checks.NO_DECLINE})
        if checks.NO_DECLINE in banned:  # a fact answers: the decline's opening words are not said
            words_banned.update(_DECLINE_START.get(lang, ()))
        ids = checks.banned_token_ids(words_banned, self.reader.tok.encode, allowed, keep=self.special_ids) \
            if words_banned else ()
        return tuple(sorted(ids))

    def verify_fn(self, question, lang, facts, history, cancel):
        return None  # the remask verifier reads the record model; the checks decode a second variant instead

    def usual_replies(self, lang: str) -> list[str]:
        return self.skills.usual_replies(lang) + list(DECLINE.get(lang, ()))


def _reads_as_decline(text: str, lang: str) -> bool:
    if is_decline(text, ""):
        return True
    return any(text.startswith(s) for s in _DECLINE_START.get(lang, ()) if len(s) > 8)


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([.,;:!?])", r"\1", text).strip()
    return text[:1].upper() + text[1:] if text else text
