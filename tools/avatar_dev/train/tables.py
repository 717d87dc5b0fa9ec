"""The checks tables of the embedded model, read from its training corpus once, at ship time.

The lexicon, word-pair and decline checks (avatar/answer/checks/lexicon.py) and the grounding
check's small-talk nouns (common_words.py) judge a reply by the words the model learned. Those come
from the training corpus, so they are written into the model folder beside the weights
(`checks_tables.json.gz`, covered by the manifest's sha256) and the kiosk only reads them: it never
regenerates the corpus, nor needs the small-talk corpora installed.
"""
from __future__ import annotations

import re
from importlib import resources

from avatar.model_contract import DECLINE, CheckTables

LEXICON_EXAMPLES = 20000  # examples of the training stream the lexicon is read from (train seeds, deterministic)


def build_tables(n_examples: int = LEXICON_EXAMPLES) -> CheckTables:
    """Words and adjacent word pairs of the corpus's replies, questions and facts (styled venues mixed
    in as in training) and of all small talk; the declines' words; the German small-talk nouns."""
    from avatar.answer.checks.lexicon import word_pairs, words_of
    from avatar_dev.train import corpus

    texts = [t for ex in corpus.take(corpus.examples(0, styled_share=corpus.STYLED_SHARE), n_examples)
             for t in (ex.reply, ex.question, *ex.facts)]
    # rare small-talk words: all of them, not a sample
    texts += [t for pairs in corpus.small_talk_pairs().values() for pair in pairs for t in pair]
    words: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for text in texts:
        words.update(words_of(text))
        pairs.update(word_pairs(text))
    declines = {lang: frozenset(w for text in phrases for w in words_of(text)) for lang, phrases in DECLINE.items()}
    return CheckTables(words=frozenset(words), pairs=frozenset(pairs), decline_words=declines,
                       small_talk_nouns={"de": small_talk_nouns_de()})


def small_talk_nouns_de() -> frozenset[str]:
    """The words of the German small talk the embedded model learns (chatterbot-corpus), minus any
    name the venue generator uses: "Strom" or "Pizza" in a chat reply is a noun, not a venue fact."""
    from avatar_dev.train import corpus
    from avatar_dev.train.small_talk import yaml_pairs

    folder = resources.files("chatterbot_corpus") / "data" / "german"
    pairs = [p for f in sorted(folder.iterdir()) if f.name.endswith(".yml")
             for p in yaml_pairs(f.read_text(encoding="utf-8"))]
    words = {w.lower() for _, reply in pairs for w in re.findall(r"[A-Za-zÄÖÜäöüß]+", reply)}
    venue_names = {w.lower() for names in (corpus.FIRST, corpus.LAST, corpus.COMPANY, corpus.CITIES, corpus.PLACES)
                   for n in names for w in n.split()}
    return frozenset(words - venue_names)
