"""Issue 14, item 7: the libraries measured against the project's own code (docs/INTERFACES.md,
"Libraries, and what stays the project's own"). Not part of the kiosk; needs `pip install bm25s
text2num` (neither is a dependency). Run from the repository root:

    PYTHONPATH=. python docs/bench/issue14_libraries.py bm25s          # first fact, project vs bm25s' lengths, eval packs, words alone
    PYTHONPATH=. python docs/bench/issue14_libraries.py bm25s-timing   # the 5,000-fact synthetic pack
    PYTHONPATH=. python docs/bench/issue14_libraries.py bm25s-eval --packs evals/packs/dev --json OUT   # `avatar eval` with bm25s' lengths
    PYTHONPATH=. python docs/bench/issue14_libraries.py text2num       # what text2num reads of the checks' number words

bm25s takes each fact as one token list: its length is its number of tokens, and every token counts
toward term frequency. The project counts keywords and compound parts toward term frequency but not
length, and gives the rendered hours the average length. The bm25s variant here is the project's
retriever with bm25s' lengths (checked against bm25s' own scores), the query weights applied per term
(bm25s.get_scores takes none: one call per term).
"""
import glob
import sys
import time
import tomllib
from datetime import date

import numpy as np

from avatar.answer.knowledge import load_pack
from avatar.answer.retrieval import index as ix
from avatar.answer.retrieval.retriever import Retriever

DAY = date(2026, 12, 1)
K1, B = 1.2, 0.3


def bm25s_lengths(index):
    """Each fact's length as bm25s counts it: every token of its postings (text, keywords, parts)."""
    tot = [0] * len(index.facts)
    for plist in index.postings.values():
        for d, tf in plist:
            tot[d] += tf
    return tot


def _build_with_bm25s_lengths(self, lang, day):
    index = ix.build_index(self.pack, lang, day)
    index.lengths = bm25s_lengths(index)
    index.avg_len = sum(index.lengths) / len(index.lengths)
    return index


class Bm25sLike(Retriever):
    _build = _build_with_bm25s_lengths


def corpus_of(index):
    docs = [[] for _ in index.facts]
    for t, plist in index.postings.items():
        for d, tf in plist:
            docs[d] += [t] * tf
    return docs


def bm25s_model(index):
    import bm25s
    m = bm25s.BM25(k1=K1, b=B, method="lucene")
    m.index(corpus_of(index), show_progress=False)
    return m


def largest_difference(index):
    """The largest difference, over the first 300 terms, between the project's formula on this index
    and bm25s' own scores (which leave out the constant k1 + 1, like Lucene 8+)."""
    m = bm25s_model(index)
    worst = 0.0
    for term in list(index.postings)[:300]:
        ours = np.zeros(len(index.facts))
        for d, tf in index.postings[term]:
            ours[d] = index.idf(term) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * index.lengths[d] / index.avg_len))
        worst = max(worst, float(np.max(np.abs(ours - m.get_scores([term]) * (K1 + 1)))))
    return worst


def compare_first_facts():
    counts, changed, worst = {}, [], 0.0
    for split in ("dev", "test"):
        for venue in sorted(glob.glob(f"evals/packs/{split}/*/venue.toml")):
            pack = load_pack(venue)
            qs = tomllib.load(open(venue.replace("venue.toml", "questions.toml"), "rb"))["q"]
            ours, theirs = Retriever(pack), Bm25sLike(pack)
            for lang in ("de", "en"):
                worst = max(worst, largest_difference(theirs._index(lang, DAY)))
            for q in qs:
                if q["kind"] != "fact":
                    continue
                a, b = ours.match(q["q"], q["lang"], 3, DAY), theirs.match(q["q"], q["lang"], 3, DAY)
                fa, fb = (m.facts[0].id if m.facts else None for m in (a, b))
                for key, add in (("n", 1), ("project right", fa == q["fact"]), ("bm25s lengths right", fb == q["fact"]),
                                 ("answers() differs", a.answers() != b.answers())):
                    counts[(split, key)] = counts.get((split, key), 0) + add
                if fa != fb:
                    changed.append((split, q["q"], q["fact"], fa, fb))
    print(f"bm25s' lengths against bm25s' own scores x (k1 + 1): largest difference {worst:.1e}")
    for k, v in sorted(counts.items()):
        print(*k, v)
    for c in changed:
        print("first fact differs:", c)


def timing(n=5000):
    import tempfile

    from avatar.answer.synthetic_pack import write_synthetic_pack
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = write_synthetic_pack(tmp, n)
        pack = load_pack(path)
    r = Retriever(pack)
    r.prepare(["de"], DAY)
    index = r._index("de", DAY)
    t0 = time.perf_counter()
    m = bm25s_model(index)
    build = time.perf_counter() - t0
    for q in ("wann beginnt der abend mit tinsa", "was kostet der eintritt", "gibt es eine garderobe",
              "wo sind die toiletten"):
        terms, _, _ = r._query_terms(q, "de", index)
        reps = 300
        t0 = time.perf_counter()
        for _ in range(reps):
            scores = {}
            for term, w in terms.items():
                idf = index.idf(term)
                for d, tf in index.postings[term]:
                    norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * index.lengths[d] / index.avg_len))
                    scores[d] = scores.get(d, 0.0) + w * idf * norm
        ours = (time.perf_counter() - t0) / reps * 1e3
        t0 = time.perf_counter()
        for _ in range(reps):
            s = np.zeros(len(index.facts), dtype=np.float32)
            for term, w in terms.items():
                s += w * m.get_scores([term])
            np.flatnonzero(s)
        theirs = (time.perf_counter() - t0) / reps * 1e3
        print(f"{q!r}: {len(terms)} terms, project {ours:.3f} ms, bm25s (a get_scores per term) {theirs:.3f} ms")
    print(f"bm25s index over the same terms ({len(index.facts)} facts): {build * 1e3:.0f} ms on top of the analysis")


def text2num_misses():
    from text_to_num import alpha2digit, text2num

    from avatar.answer.checks.number_words import CARDINALS, NUMBER_RE, ORDINALS

    def read(w):
        for lang in ("de", "en"):
            try:
                return text2num(w, lang)
            except ValueError:
                pass
        return None
    miss = [w for w, n in CARDINALS.items() if read(w) != n]
    print(f"text2num: {len(miss)} of {len(CARDINALS)} cardinal spellings not read: {miss}")
    miss = []
    for w, n in ORDINALS.items():
        en = w.isascii() and w.endswith(("st", "nd", "rd", "th"))
        if str(n) not in alpha2digit(f"on the {w} floor" if en else f"im {w} Stock", "en" if en else "de"):
            miss.append(w)
    print(f"alpha2digit: {len(miss)} of {len(ORDINALS)} ordinal forms left as words: {miss}")
    for s in ("Wir öffnen um halb zehn.", "Es gibt zwo Eingänge und zwei Ausgänge.", "Im ersten Stock, 21 Euro."):
        print(f"  {s!r} -> {alpha2digit(s, 'de')!r}")
    import re
    pattern, s = re.compile(rf"\b{NUMBER_RE}\b", re.I), "Wir öffnen um halb zehn und schließen um viertel nach sechs."
    for name, f in (("alpha2digit", lambda: alpha2digit(s, "de")), ("the number regex", lambda: pattern.findall(s))):
        t0 = time.perf_counter()
        for _ in range(2000):
            f()
        print(f"{name}: {(time.perf_counter() - t0) / 2000 * 1e6:.0f} µs a sentence")


if __name__ == "__main__":
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "bm25s-eval":
        Retriever._build = _build_with_bm25s_lengths
        from avatar.cli import main
        sys.exit(main(["eval", *rest]))
    {"bm25s": compare_first_facts, "bm25s-timing": timing, "text2num": text2num_misses}[mode]()
