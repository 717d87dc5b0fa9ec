"""BM25 over a knowledge pack's facts, per language, for questions as ASR writes them.

Questions arrive lower-case and without punctuation, often with German compounds the pack spells
differently ("Garderobenschrank" vs "Garderobe"). Words are stemmed (Snowball, German and
English); a question word the pack never uses is matched to pack words it contains or that contain
it (compound parts), else to pack words sharing most character trigrams (misheard spellings).

The package by concern:
- words.py: the question's words (stopwords, stems, cue words, everyday frequency, compound shapes);
- index.py: the BM25 index of a pack's facts and the matching of a word onto the pack's vocabulary;
- retriever.py: `Retriever` (scoring, cues, reordering) and `Match` (whether the best fact answers);
- semantic.py: what a question means (multilingual-e5-small similarities), which reorders the facts;
- __main__.py: `python -m avatar.answer.retrieval PACK LANG QUESTION...`.
"""
from avatar.answer.retrieval.index import RENDERED_HOURS, build_index
from avatar.answer.retrieval.retriever import GATE_COVERAGE, RERANK_RATIO, Match, Retriever, retriever_for
from avatar.answer.retrieval.words import SPECIFIC_ZIPF, STOPWORDS, analyze, forget_words

__all__ = ["GATE_COVERAGE", "RENDERED_HOURS", "RERANK_RATIO", "SPECIFIC_ZIPF", "STOPWORDS", "Match", "Retriever", "retriever_for",
           "analyze", "build_index", "forget_words"]
