"""The embedded model's prompt and reply record, as token ids.

Prompt: `<bos> <fact> fact <fact> fact ... <sep> <user> q <bot> reply ... <sep> question <sep>`
(facts in the question's language). Reply record (issue 5's schema):
`<de>|<en> <mood> <sep> spoken text <eos> <eos>...`, so a checker can fix the language, mood and
separator tokens and let the model fill only the text.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from avatar.model_contract import MOODS

# The shipped model was trained on these; longer ones (320 / 112, for operators' long facts) cost the
# decode ~60% more time on the dev packs and the shipped model does not use them (docs/MODEL.md).
MAX_PROMPT_TOKENS = 192
MAX_FACT_TOKENS = 48


@dataclass(frozen=True)
class ReplyRecord:
    lang: str
    mood: str
    text: str
    well_formed: bool  # the three header tokens were a language, a mood and <sep>, and <eos> ended it


# every token the prompt and the reply record are made of: a model without them cannot answer
RECORD_TOKENS = ("<pad>", "<bos>", "<eos>", "<mask>", "<sep>", "<fact>", "<user>", "<bot>", "<de>", "<en>",
                 *(f"<{m}>" for m in MOODS))


class PromptCodec:
    """Turns (facts, history, question) into prompt ids and reply ids back into a ReplyRecord."""

    def __init__(self, tokenizer):
        # a `tokenizers.Tokenizer`, or a transformers fast tokenizer wrapping one (DiffusionLM.tokenizer)
        self.tok = getattr(tokenizer, "backend_tokenizer", tokenizer)
        self.id = {t: self.tok.token_to_id(t) for t in RECORD_TOKENS}
        self.mood_ids = {self.id[f"<{m}>"]: m for m in MOODS}
        self.lang_ids = {self.id["<de>"]: "de", self.id["<en>"]: "en"}

    def decision_options(self, llm_cfg) -> dict:
        """DecodeOptions fields from the [llm] settings that steer the reply's kind: the decline bias
        and, with llm.mood_first, the mood (answer position 1) decided before any word of the text."""
        return {"logit_bias": self.decline_bias(llm_cfg),
                "first_positions": (1,) if llm_cfg.mood_first else ()}

    def decline_bias(self, llm_cfg) -> tuple[tuple[int, float], ...]:
        """llm.decline_bias as a logit bias on the "sorry" mood token, the reply record that says the
        facts do not answer the question (DecodeOptions.logit_bias): > 0 declines more readily."""
        value = llm_cfg.decline_bias
        token = self.id.get("<sorry>")
        return ((token, value),) if value and token is not None else ()

    def text_ids(self, text: str) -> list[int]:
        return self.tok.encode(text, add_special_tokens=False).ids

    def prompt_ids(self, facts: Sequence[str], history: Sequence[tuple[str, str]], question: str,
                   max_len: int = MAX_PROMPT_TOKENS) -> list[int]:
        q = [self.id["<sep>"]] + self.text_ids(question)[:48] + [self.id["<sep>"]]
        hist: list[int] = []
        for hq, hr in history[-2:]:
            hist += [self.id["<user>"]] + self.text_ids(hq)[:24] + [self.id["<bot>"]] + self.text_ids(hr)[:32]
        if 1 + len(hist) + len(q) > max_len // 2:
            hist = []  # history is the first thing to go: the facts answer the question
        out = [self.id["<bos>"]]
        for f in facts:
            piece = [self.id["<fact>"]] + self.text_ids(f)[:MAX_FACT_TOKENS]
            if len(out) + len(piece) + len(hist) + len(q) > max_len:
                break  # facts come best-first, so the least relevant are dropped
            out += piece
        return out + [self.id["<sep>"]] + hist + q[1:]

    def reply_ids(self, lang: str, mood: str, text: str, length: int) -> list[int]:
        ids = [self.id[f"<{lang}>"], self.id[f"<{mood}>"], self.id["<sep>"]] + self.text_ids(text)[:length - 4]
        return ids + [self.id["<eos>"]] * (length - len(ids))

    def skeleton(self, lang: str, mood: str | None, length: int) -> list[int]:
        """Reply ids with the header fixed and every other position masked (for infilling)."""
        head = [self.id[f"<{lang}>"], self.id[f"<{mood}>"] if mood else self.id["<mask>"], self.id["<sep>"]]
        return head + [self.id["<mask>"]] * (length - 3)

    def parse_reply(self, ids: Sequence[int]) -> ReplyRecord:
        ids = list(ids)
        eos = self.id["<eos>"]
        body = ids[3:ids.index(eos)] if eos in ids[3:] else ids[3:]
        ok = (len(ids) >= 3 and ids[0] in self.lang_ids and ids[1] in self.mood_ids and ids[2] == self.id["<sep>"]
              and eos in ids[3:] and not any(i in self.id.values() for i in body))
        lang = self.lang_ids.get(ids[0], "") if ids else ""
        mood = self.mood_ids.get(ids[1], "neutral") if len(ids) > 1 else "neutral"
        text = self.tok.decode([i for i in body if i not in self.id.values()], skip_special_tokens=True)
        return ReplyRecord(lang, mood, text.strip(), ok)
