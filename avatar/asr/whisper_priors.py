"""The two priors of a Whisper pass, decided without the model: the venue's words as the prompt
(`prompt_tokens`: which words, as token ids, fit Whisper's prompt), and the language of a short,
unsure utterance (`choose_language`: the previous turn's language wins). See
avatar/asr/whisper_asr.py for where they are used, docs/PERF.md ("Venue words") for why."""
from __future__ import annotations

from typing import Mapping, Sequence


def choose_language(probs: Mapping[str, float], languages: Sequence[str], prior: str | None,
                    utterance_ms: float, prior_max_ms: float, prior_below_prob: float) -> tuple[str, float, bool]:
    """Whisper's most probable kiosk language, unless the utterance is short (<= prior_max_ms) and
    Whisper is unsure (its pick below prior_below_prob among the kiosk's languages): then the
    previous turn's language `prior`. Short German commands ("Weiter", "vergiss es") are where
    Whisper's language ID fails, and a visitor rarely switches language mid-visit with two words.
    Returns (language, its renormalised probability, True when the prior decided)."""
    best, prob = _restrict(probs, languages, prefix="<|")
    if (prior in languages and prior != best and utterance_ms <= prior_max_ms
            and prob < prior_below_prob):
        return prior, _restrict(probs, languages, prefix="<|", pick=prior)[1], True
    return best, prob, False


def prompt_tokens(encode, words: Sequence[str], max_tokens: int) -> list[int]:
    """Token ids of ' w1, w2, w3' for as many whole words (in the order given, duplicates and
    blanks skipped) as fit in `max_tokens` (Whisper's own limit for a prompt is 223).

    Only words Whisper's vocabulary has no single token for: those it knows well already, and
    in the prompt they only pull other speech towards them ("resume" heard as "museum", "pause"
    as "Parkhaus" with "museum" prompted; docs/PERF.md)."""
    limit = min(int(max_tokens), 223)
    if limit <= 0:
        return []
    kept: list[str] = []
    seen: set[str] = set()
    ids: list[int] = []
    for word in words:
        word = " ".join(str(word).split())
        if not word or word.casefold() in seen or len(encode(" " + word)) < 2:
            continue
        trial = encode(" " + ", ".join([*kept, word]))
        if len(trial) > limit:
            continue  # a shorter word further down may still fit
        kept.append(word)
        seen.add(word.casefold())
        ids = list(trial)
    return ids


def _restrict(probs: Mapping[str, float], languages: Sequence[str], prefix: str,
              pick: str | None = None) -> tuple[str, float]:
    """The most probable of the allowed languages (or `pick`), with its probability renormalised among them."""
    key = (lambda l: f"<|{l}|>") if prefix else (lambda l: l)
    p = {l: float(probs.get(key(l), 0.0)) for l in languages}
    total = sum(p.values())
    best = pick if pick in p else max(p, key=p.get)
    return best, (p[best] / total if total > 0 else 1.0 / len(p))
