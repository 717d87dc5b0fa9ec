"""The diffusion answerer: retrieval -> prompt -> embedded diffusion model -> checks -> Answer.

The reply is decoded by infilling the record skeleton `<lang> [mood] <sep> [text]`: the language
token is fixed to the question's language, so the record is well-formed by construction and the
reply cannot switch language. `decode_candidate` is the seam for the checks (issue 5): variant 0
is the default decode, other variants change the unmasking order (and seed), and banned token ids
are never committed.
"""
from __future__ import annotations

import logging
import re
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Sequence

from avatar.answer.base import Answer, CheckReport, DecodeStats, Fact, HistoryTurn
from avatar.answer.prompt import PromptCodec
from avatar.answer.text import detect_language, words
from avatar.cancel import NEVER, CancelToken
from avatar.model_contract import day_hours_text, is_decline
from avatar.stage_names import DECODE, RETRIEVAL
from avatar.trace import TRACER, Tracer, now

log = logging.getLogger(__name__)

_DAY_WORDS = {
    "de": ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag"),
    "en": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
}
_ALL_DAY_WORDS = tuple(w for names in _DAY_WORDS.values() for w in names)
_PACK_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def asked_weekday(question: str) -> tuple[int, str] | None:
    """The weekday a question names ("am Sonntag", "sundays", ASR lower case), with its language."""
    for w in words(question):
        for lang, names in _DAY_WORDS.items():
            for d, name in enumerate(names):
                if w in (name, name + "s"):
                    return d, lang
    return None


def weekday_fact(pack, day: int, lang: str, today: date | None = None) -> Fact | None:
    """The coming `day`'s opening hours (today's, if today is that day) as the model saw them in
    training ("Am Sonntag haben wir ..."); a holiday in the pack's [dates] counts for that day."""
    hours = getattr(pack, "hours", None)
    if not hours or hours.get(_PACK_DAYS[day]) is None:
        return None
    today = today or datetime.now().date()
    coming = today + timedelta(days=(day - today.weekday()) % 7)
    intervals = pack.hours_on(coming)
    return Fact(f"hours-{_PACK_DAYS[day]}", lang, day_hours_text(day, intervals, lang), "hours", 1.0)


class DiffusionAnswerer:
    """Answers from the knowledge pack with the diffusion model; see the module docstring."""

    def __init__(self, cfg, pack, tracer: Tracer = TRACER, lm=None):
        from avatar.answer.retrieval import retriever_for
        from avatar.llm.loader import load_configured

        self.cfg, self.pack, self.tracer = cfg, pack, tracer
        self.lm = lm or load_configured(cfg.llm)
        self.codec = PromptCodec(self.lm.tokenizer)
        self.retriever = retriever_for(pack, cfg)
        from avatar.llm.engine import DecodeOptions

        opts = DecodeOptions.from_config(cfg.llm)
        limit = int(getattr(self.lm.model.config, "max_answer_len", opts.gen_length))
        self.options = replace(opts, gen_length=min(opts.gen_length, limit), **self.codec.decision_options(cfg.llm))
        self.special_ids = frozenset(i for i in self.codec.id.values() if i is not None)
        from avatar.answer.retrieval_answerer import RetrievalAnswerer

        self.skills = RetrievalAnswerer(pack, cfg, tracer)  # what no language model can know: the clock

    def use_pack(self, pack) -> None:
        """Answer from `pack` from now on (the operator edited the venue's file); between turns. The
        model stays: a pack is read at every answer, never learnt."""
        from avatar.answer.retrieval import retriever_for

        retriever = retriever_for(pack, self.cfg)
        retriever.prepare(tuple(self.cfg.general.languages), background=True)
        self.skills.use_pack(pack)
        self.pack, self.retriever = pack, retriever

    def usual_replies(self, lang: str) -> list[str]:
        """What this answerer says word for word, in `lang` (for tts.prefill): the checks snap a reply
        to a fact or fall back to the retrieval answerer's words, and the model declines in the
        phrases it was trained on."""
        from avatar.model_contract import DECLINE

        return self.skills.usual_replies(lang) + list(DECLINE.get(lang, ()))

    # --- the seam for the checks -------------------------------------------------------------------
    def decode_candidate(self, question: str, lang: str, facts: Sequence[Fact], history: Sequence[HistoryTurn] = (),
                         variant: int = 0, banned_token_ids: Sequence[int] = (), cancel: CancelToken = NEVER):
        from avatar.answer.checks.candidate import Candidate
        from avatar.llm.engine import confidence_stats
        from avatar.llm.infill import Slot

        prompt = self.prompt_ids(question, lang, facts, history)
        opts = replace(self.options, banned_token_ids=tuple(sorted(set(banned_token_ids))))
        if variant == 1:
            opts = replace(opts, order="left_to_right")
        elif variant > 1:
            opts = replace(opts, order="random", seed=variant)
        skeleton = [self.codec.id[f"<{lang}>"], Slot(1, "mood"), self.codec.id["<sep>"],
                    Slot(opts.gen_length - 3, "text")]
        result = self.lm.infill(prompt, skeleton, opts, cancel=cancel)
        record = self.codec.parse_reply(result.answer_ids)
        text_ids = [t for t in result.slots[1] if t not in self.special_ids]
        info = {"steps": result.steps, "tokens": len(text_ids), "ms": round(result.ms, 2), "variant": variant,
                "well_formed": record.well_formed,
                **confidence_stats(result.confidence, [i for a, b in result.slot_ranges for i in range(a, b)])}
        return Candidate(text=_tidy(record.text), lang=lang, mood=record.mood, token_ids=text_ids,
                         decode_info=info, variant=variant)

    def prompt_ids(self, question: str, lang: str, facts: Sequence[Fact], history: Sequence[HistoryTurn]) -> list[int]:
        turns = [(h.question, h.reply) for h in history if h.lang == lang][-self.cfg.answer.history_turns:]
        return self.codec.prompt_ids([f.text for f in facts], turns, question)

    # --- Answerer --------------------------------------------------------------------------------
    def warmup(self) -> None:
        """One decode per language now, so the first visitor does not pay the first calls' set-up."""
        self.retriever.prepare(tuple(self.cfg.general.languages), background=True)
        from avatar.llm.engine import DecodeOverBudget

        for lang in self.cfg.general.languages:
            facts = self.retrieve("warmup", lang)
            try:
                self.decode_candidate("warmup", lang, facts)
            except DecodeOverBudget:
                pass  # the first decode pays the set-up: slow by nature, and no visitor waits for it
        checks = _checks_module() if self.cfg.checks.enabled else None
        if checks is not None and hasattr(checks, "warmup"):
            checks.warmup(tuple(self.cfg.general.languages))

    def retrieve(self, question: str, lang: str, history: Sequence[HistoryTurn] = ()) -> list[Fact]:
        k = self.cfg.answer.top_k
        # a short question after another leans on it ("und was kostet das?"): its words search too
        context = history[-1].question if history and len(words(question)) <= 6 else ""
        facts = list(self.retriever.retrieve(question, lang, k=k, context=context))
        kept = self.skills.same_subject(question, lang, history)
        if kept is not None:  # "is it open on Mondays?" after the café: the café's fact first
            facts = [kept.facts[0]] + [f for f in facts if f.id != kept.facts[0].id][:k - 1]
        day = asked_weekday(question)
        # the asked day's hours only for the venue's own hours: "sauna hours on Saturday" are the sauna's
        if day is not None and not self.retriever.names_subject(question, lang, _ALL_DAY_WORDS):
            fact = weekday_fact(self.pack, day[0], lang)
            if fact is not None:  # the asked day's hours first: the model was trained on this sentence
                facts = [fact] + [f for f in facts if f.id not in ("hours-week", "hours-today")][:k - 1]
        return facts

    def answer(self, question: str, lang: str | None = None, history: Sequence[HistoryTurn] = (),
               cancel: CancelToken = NEVER, turn: int | None = None) -> Answer:
        if lang not in ("de", "en"):
            lang = detect_language(question, default=self.cfg.general.languages[0])
        from avatar.answer.retrieval_answerer import smalltalk_kind

        if smalltalk_kind(question) == "clock":  # time and date come from the kiosk's clock, not the model
            return self.skills.answer(question, lang, list(history), cancel, turn)
        t0 = now()
        with self.tracer.span(RETRIEVAL, turn=turn, track="answer") as span:
            facts = self.retrieve(question, lang, history)
            span["facts"] = len(facts)
        from avatar.llm.engine import DecodeOverBudget

        familiar = self.familiarity(facts) if self.cfg.checks.enabled else None  # checks off: the model's own reply
        if familiar is not None and familiar < self.cfg.llm.min_familiarity:
            # the best fact reads unlike anything the model learned to phrase: its reply would be
            # replaced by the checks (docs/MODEL.md), so no decode is spent on it
            log.debug("best fact %.2f familiar to the model (< %.2f): the retrieval answer is said",
                      familiar, self.cfg.llm.min_familiarity)
            return self._said_by_retrieval(question, lang, history, cancel, turn, facts, t0, "unfamiliar", 0.0)
        try:
            return self._decode_and_check(question, lang, history, cancel, turn, facts, t0)
        except DecodeOverBudget as exc:  # too late to be worth waiting for: what retrieval says
            log.info("%s: the retrieval answer is said", exc)
            return self._said_by_retrieval(question, lang, history, cancel, turn, facts, t0, "decode_over_budget",
                                           self.options.max_ms)

    @staticmethod
    def familiarity(facts: Sequence[Fact]) -> float | None:
        """How much the prompt's first fact reads like the model's training (the share of its word
        pairs the checks tables hold); None when there is no fact or the model folder has no tables."""
        if not facts:
            return None
        from avatar.answer.checks.lexicon import familiarity

        return familiarity(facts[0].text)

    def _said_by_retrieval(self, question, lang, history, cancel, turn, facts, t0, reason: str,
                           decode_ms: float) -> Answer:
        """What the retrieval answerer says, marked as the model's reply replaced (`reason`)."""
        said = self.skills.answer(question, lang, list(history), cancel, turn)
        return replace(said, checks=replace(said.checks, enabled=True, fallback_used=True,
                                            fallback=f"retrieval:{reason}", retrieval_backed=said.checks.retrieval or {}),
                       decode=DecodeStats(ms=round(decode_ms, 2), answer_ms=round((now() - t0) * 1000.0, 2)),
                       facts=facts, source="fallback")

    def _decode_and_check(self, question, lang, history, cancel, turn, facts, t0) -> Answer:
        """The first decode, then the checks (re-decodes, fallbacks) on it."""
        decode = lambda variant, banned_ids=(): self.decode_candidate(question, lang, facts, history, variant,
                                                                      banned_ids, cancel)
        with self.tracer.span(DECODE, turn=turn, track="llm", variant=0) as span:
            first = decode(0)
            span.update(first.decode_info)
        checks = _checks_module() if self.cfg.checks.enabled else None
        if checks is None:
            return Answer(first.text, lang, facts, first.mood, checks=CheckReport(enabled=False),
                          decode=_decode_record(first, [first], t0), source="diffusion")
        allowed = [f.text for f in facts] + [question]
        decode_fn = lambda variant, banned: decode(variant, self.banned_ids(checks, banned, allowed, lang))
        # the operator's words for a fact, and the venue's own name and kind (asked about, never missing)
        venue = f"{self.pack.kind} {self.pack.display_name(lang)}"
        extra = {"keywords_of": lambda fact: " ".join(self.pack.keywords(fact.id, lang)) + " " + venue,
                 "verify": self.verify_fn(question, lang, facts, history, cancel)}
        checked = checks.check_and_choose(question, lang, facts, decode_fn, self.cfg, tracer=self.tracer, turn=turn,
                                          cancel=cancel, first=first, **extra)
        chosen = checked.candidate or first
        backed = self._retrieval_backed(checked, question, lang, history, cancel, turn)
        if backed is not None:  # what the retrieval answerer says: never worse than quoting the fact
            return replace(backed, checks=replace(checked.checks, retrieval_backed=backed.checks.retrieval or {}),
                           decode=_decode_record(chosen, checked.candidates or [first], t0), facts=facts,
                           source="fallback")
        return Answer(checked.reply, checked.lang or lang, facts, checked.mood, checked.gesture, checks=checked.checks,
                      decode=_decode_record(chosen, checked.candidates or [first], t0),
                      source="fallback" if checked.fallback_used else
                      "snapped" if checked.checks.snapped else "diffusion")

    def banned_ids(self, checks, banned: frozenset, allowed: list[str], lang: str) -> tuple[int, ...]:
        """The token ids a re-decode must not write: the banned words' (where no fact or the question
        uses them) and, when the checks found a fact that answers, the "sorry" record's."""
        words_banned = banned - {checks.NO_DECLINE}
        ids = checks.banned_token_ids(words_banned, self.codec.text_ids, allowed, keep=self.special_ids) \
            if words_banned else frozenset()
        if checks.NO_DECLINE in banned:
            ids = frozenset(ids) | {self.codec.id["<sorry>"]}
        return tuple(ids)

    def verify_fn(self, question, lang, facts, history, cancel):
        """Re-decode only the reply's values (the checks' cheaper self-consistency), or None."""
        try:
            from avatar.answer.checks.remask import diffusion_verify
        except ImportError:
            return None
        return diffusion_verify(self, question, lang, facts, history, cancel)

    def _retrieval_backed(self, checked, question, lang, history, cancel, turn) -> Answer | None:
        """checks.fallback_answer = "retrieval": a reply the checks replaced is the retrieval answerer's
        (the best fact whole, or its decline); checks.decline_follows = "retrieval": a decline stands
        only where the retrieval answerer declines too. None: the checked reply stands."""
        c = self.cfg.checks
        by_fallback = checked.fallback_used and c.fallback_answer == "retrieval"
        by_decline = is_decline(checked.reply, checked.mood or "") and c.decline_follows == "retrieval"
        if not (by_fallback or by_decline):
            return None
        said = self.skills.answer(question, lang, list(history), cancel, turn)
        if by_decline and not by_fallback and said.mood == "sorry":
            return None  # both decline: the model's own words stand
        return said


def _decode_record(chosen, candidates, t0: float) -> DecodeStats:
    return DecodeStats(steps=chosen.decode_info.get("steps", 0), tokens=chosen.decode_info.get("tokens", 0),
                       ms=chosen.decode_info.get("ms", 0.0), decodes=len(candidates),
                       decode_ms_total=round(sum(c.decode_info.get("ms", 0.0) for c in candidates), 2),
                       answer_ms=round((now() - t0) * 1000.0, 2))


def _tidy(text: str) -> str:
    """The tokenizer's pieces joined back: no space before punctuation."""
    return re.sub(r"\s+([.,;:!?])", r"\1", text).strip()


def _checks_module():
    try:
        from avatar.answer import checks
    except ImportError as exc:  # the checking layer is optional: answer unchecked, say so in the log
        log.warning("answer checks unavailable: %s", exc)
        return None
    return checks
