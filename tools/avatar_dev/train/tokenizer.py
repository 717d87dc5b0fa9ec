"""A small BPE vocabulary for both languages, trained on the synthetic corpus and the small talk.

Digits are split one by one, so a number in a fact and in the reply is the same token sequence
(the copy head copies it digit by digit instead of needing a token for every price and time).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from avatar.llm.embedded_model import SPECIAL_TOKENS
from avatar_dev.train import corpus


def corpus_texts(seed: int, n_examples: int) -> Iterable[str]:
    stream = corpus.examples(seed)
    for _ in range(n_examples):
        ex = next(stream)
        yield from ex.facts
        yield ex.question
        yield ex.reply
    for pairs in corpus.small_talk_pairs().values():
        for q, a in pairs:
            yield q
            yield a


def train_tokenizer(vocab_size: int = 4096, seed: int = 0, n_examples: int = 20000) -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always"),
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.Punctuation()])
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, min_frequency=2,
                                  initial_alphabet=list("abcdefghijklmnopqrstuvwxyzäöüßABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ"
                                                        "0123456789.,:;!?'\"-()€%/&éèáàç"))
    tok.train_from_iterator(corpus_texts(seed, n_examples), trainer=trainer)
    return tok


def save(tok: Tokenizer, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tokenizer.json"
    tok.save(str(path))
    return path
