"""Evaluate answerers on knowledge packs written by other people (evals/packs, issue 11).

Each pack folder holds a venue.toml and a questions.toml (format: evals/README.md). Every question
goes to the configured answerer and to the retrieval-only answerer (which says the best fact whole),
and each reply is scored:

- answerable: *right* (every `expect` item said), *wrongly declined*, or *wrong fact* (answered,
  but not with what was asked);
- unanswerable: *declined* (right) or answered;
- any reply: *unsupported* when it holds a number that no fact of the pack and not the question holds.

Reported per pack and language, with the share of right answers that are the model's own reply (not
a fallback quoting the fact) and how long replies are against the fact they come from.
"""
from __future__ import annotations

import re
import statistics
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from avatar.answer.base import HistoryTurn
from avatar.answer.retrieval import semantic
from avatar.errors import ConfigError
from avatar.stats import percentile_ms
from avatar_dev.train.evaluate import DECLINE_MARKERS  # one list of what a decline says

KINDS = ("fact", "clause", "yesno", "paraphrase", "followup", "unanswerable")


@dataclass
class Question:
    q: str
    lang: str
    kind: str
    fact: str = ""
    expect: tuple = ()
    history: tuple = ()


@dataclass
class Row:
    pack: str
    answerer: str
    lang: str
    kind: str
    question: str
    reply: str
    source: str
    mood: str
    outcome: str          # right | wrong_fact | wrongly_declined | declined | answered_unanswerable
    unsupported: list
    reply_chars: int
    fact_chars: int
    ms: float             # the whole answer stage: retrieval, decodes, checks
    decode_ms: float = 0.0  # the first decode alone


def load_questions(folder: Path) -> list[Question]:
    data = tomllib.loads((folder / "questions.toml").read_text(encoding="utf-8"))
    out = []
    for i, q in enumerate(data.get("q", [])):
        kind = q.get("kind", "fact")
        if kind not in KINDS or q.get("lang") not in ("de", "en") or not q.get("q"):
            raise ValueError(f"{folder / 'questions.toml'}: question #{i + 1}: needs q, lang de|en and a kind of {KINDS}")
        out.append(Question(q["q"], q["lang"], kind, q.get("fact", ""), tuple(q.get("expect", ())),
                            tuple(tuple(h) for h in q.get("history", ()))))
    return out


def pack_folders(root: Path) -> list[Path]:
    """The pack folders under root (root itself when it is one); sorted, so runs are comparable."""
    root = Path(root)
    if (root / "questions.toml").exists():
        return [root]
    found = sorted(p.parent for p in root.rglob("questions.toml"))
    if not found:
        raise ConfigError(f"no evaluation packs (venue.toml + questions.toml) under {root}",
                          hint="give a folder holding pack folders, e.g. --packs evals/packs/dev")
    return found


# --- scoring ----------------------------------------------------------------------------------------
_AMPM = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b")


def normalise(text: str) -> str:
    """Lower case, one spelling for money, times, decimals and dashes, punctuation as spaces."""
    t = text.lower()
    t = _AMPM.sub(lambda m: f"{(int(m[1]) % 12) + (12 if m[3] == 'pm' else 0)}:{m[2] or '00'}", t)
    t = re.sub(r"\b(\d{1,2})[.:](\d{2})\s*uhr\b", r"\1:\2", t)
    t = re.sub(r"\b(\d{1,2})\s*uhr\b", r"\1:00", t)
    t = re.sub(r"\b0(\d):(\d{2})\b", r"\1:\2", t)
    t = re.sub(r"(\d),(\d)", r"\1.\2", t)
    t = re.sub(r"\b(\d+)\.00\b(?!\d)", r"\1", t)  # "16.00 €" says "16 €" (times became 16:00 above)
    t = re.sub(r"\b(euros?|eur)\b", "€", t)
    t = re.sub(r"€\s*(\d+(?:\.\d+)?)", r"\1 €", t)  # €9 -> 9 €
    t = re.sub(r"[–—]", "-", t)
    t = re.sub(r"[^\w:.€/+%@-]+", " ", t)
    t = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", t)  # full stops, not decimal points
    t = re.sub(r"(?<!\d):|:(?!\d)", " ", t)  # a label's colon ("Gate B: open"), not a time's
    t = t.replace("-", " - ").replace("€", " € ")
    return " " + " ".join(t.split()) + " "


def says(reply: str, item) -> bool:
    """The reply says `item` (or one of its alternatives); "18:00" and "18" count as the same hour."""
    alternatives = [item] if isinstance(item, str) else list(item)
    r = normalise(reply)
    r_hours = _FULL_HOUR.sub(r"\1", r)
    return any(normalise(a) in r or _FULL_HOUR.sub(r"\1", normalise(a)) in r_hours for a in alternatives)


_FULL_HOUR = re.compile(r"\b(\d{1,2}):00\b")


def is_decline(reply: str, mood: str, pack_text: str = "") -> bool:
    """The answerer said it does not know: its mood says so, or the reply has a decline's words. Only
    whole words count ("leider" is not in "Kleiderordnung"), and not the words a fact of the pack
    holds: a reply quoting "Karten können wir leider nicht zurücknehmen" or "students + staff" is
    the fact, not a decline (each decline says several markers, so one the pack uses loses nothing)."""
    if mood == "sorry":
        return True
    low, known = reply.lower(), pack_text.lower()
    return any(_says_marker(m, low) and not _says_marker(m, known) for m in DECLINE_MARKERS)


def _says_marker(marker: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(marker)}(?!\w)", text) is not None


_NUM = re.compile(r"\d+")


def unsupported_numbers(reply: str, pack_text: str, question: str) -> list[str]:
    known = set(_NUM.findall(pack_text)) | set(_NUM.findall(question))
    return [n for n in _NUM.findall(reply) if n not in known and n.lstrip("0") not in known]


def score(q: Question, reply: str, mood: str, pack_text: str = "") -> str:
    declined = is_decline(reply, mood, pack_text)
    if q.kind == "unanswerable":
        return "declined" if declined else "answered_unanswerable"
    if declined:
        return "wrongly_declined"
    return "right" if all(says(reply, item) for item in q.expect) else "wrong_fact"


# --- running ------------------------------------------------------------------------------------
def _pack_text(pack) -> str:
    parts = []
    for lang in ("de", "en"):
        parts += [f.text for f in pack.facts(lang)]
    return " ".join(parts)


def evaluate_pack(folder: Path, answerers: dict[str, Any], pack) -> list[Row]:
    questions = load_questions(folder)
    text = _pack_text(pack)
    facts = {lang: {f.id: f.text for f in pack.facts(lang)} for lang in ("de", "en")}
    rows = []
    for q in questions:
        history = [HistoryTurn(hq, hr, q.lang) for hq, hr in q.history]
        for name, answerer in answerers.items():
            # each answerer meets the question new: the meaning vector the one before it made for this
            # question would otherwise be reused, and the retrieval-only answer timed without it (~20 ms)
            semantic.forget()
            ans = answerer.answer(q.q, q.lang, history)
            ms = float(ans.decode.answer_time_ms)
            rows.append(Row(folder.name, name, q.lang, q.kind, q.q, ans.reply, ans.source or name, ans.mood,
                            score(q, ans.reply, ans.mood, text), unsupported_numbers(ans.reply, text, q.q),
                            len(ans.reply), len(facts[q.lang].get(q.fact, "")), round(ms, 2),
                            round(float(ans.decode.ms), 2)))
    return rows


def summarise(rows: list[Row]) -> dict[str, Any]:
    share = lambda xs: round(sum(xs) / len(xs), 4) if xs else None
    ans = [r for r in rows if r.kind != "unanswerable"]
    una = [r for r in rows if r.kind == "unanswerable"]
    right = [r for r in ans if r.outcome == "right"]
    clause = [r for r in right if r.kind == "clause" and r.fact_chars]
    return {
        "n": len(rows), "answerable": len(ans), "unanswerable": len(una),
        "handled": share([r.outcome in ("right", "declined") for r in rows]),  # answered right or rightly declined
        "right": share([r.outcome == "right" for r in ans]),
        "wrongly_declined": share([r.outcome == "wrongly_declined" for r in ans]),
        "wrong_fact": share([r.outcome == "wrong_fact" for r in ans]),
        "declined_unanswerable": share([r.outcome == "declined" for r in una]),
        "unsupported": sum(bool(r.unsupported) for r in rows),
        "own_share_of_right": share([r.source == "diffusion" for r in right]) if right else None,
        "clause_reply_vs_fact_chars": (round(statistics.median(r.reply_chars for r in clause)),
                                       round(statistics.median(r.fact_chars for r in clause))) if clause else None,
        "answer_p50_ms": percentile_ms([r.ms for r in rows], 50),
        "answer_p95_ms": percentile_ms([r.ms for r in rows], 95),
        "decode_p95_ms": percentile_ms([r.decode_ms for r in rows], 95),
    }


def report(rows: list[Row]) -> dict[str, Any]:
    """Per pack and language, per language over all packs, overall, and per kind of question and language
    over all packs ("kind:paraphrase/de"); one entry per answerer."""
    out: dict[str, Any] = {}
    for name in dict.fromkeys(r.answerer for r in rows):
        mine = [r for r in rows if r.answerer == name]
        table = {}
        for pack in dict.fromkeys(r.pack for r in mine):
            for lang in ("de", "en"):
                sel = [r for r in mine if r.pack == pack and r.lang == lang]
                if sel:
                    table[f"{pack}/{lang}"] = summarise(sel)
        for lang in ("de", "en"):
            table[f"all/{lang}"] = summarise([r for r in mine if r.lang == lang])
        table["all"] = summarise(mine)
        for kind in dict.fromkeys(sorted(r.kind for r in mine)):  # which kinds of question fail, over all packs
            for lang in ("de", "en"):
                sel = [r for r in mine if r.kind == kind and r.lang == lang]
                if sel:
                    table[f"kind:{kind}/{lang}"] = summarise(sel)
        out[name] = table
    return out


def run_packs(root: Path, cfg, lm=None) -> dict[str, Any]:
    """Both answerers on every pack under root: {"report": ..., "rows": [...]}."""
    from avatar.answer.diffusion_answerer import DiffusionAnswerer
    from avatar.answer.knowledge import load_pack
    from avatar.answer.retrieval_answerer import RetrievalAnswerer
    from avatar.trace import Tracer

    from avatar.llm.e5_reader import is_reader_folder
    from avatar.paths import resolve

    reader = None
    use_reader = lm is None and is_reader_folder(resolve(cfg.llm.model))
    rows: list[Row] = []
    for folder in pack_folders(root):
        pack = load_pack(folder)
        tracer = Tracer()
        if use_reader:  # the e5 reader (issue 36), loaded once for all packs
            from avatar.answer.reader_answerer import ReaderAnswerer

            model = ReaderAnswerer(cfg, pack, tracer, reader=reader)
            reader = model.reader
        else:
            model = DiffusionAnswerer(cfg, pack, tracer, lm=lm)
            lm = model.lm
        answerers = {"diffusion": model, "retrieval": RetrievalAnswerer(pack, cfg, tracer)}
        # set up as the kiosk is at its start: otherwise the first question of each language pays the
        # index, the facts' vectors and the first decode (2-3.5 s), timed as that question's answer
        for answerer in answerers.values():
            answerer.retriever.prepare(tuple(cfg.general.languages))
            answerer.warmup()
        rows += evaluate_pack(folder, answerers, pack)
    return {"report": report(rows), "rows": [asdict(r) for r in rows]}


def format_report(rep: dict[str, Any]) -> str:
    """A side-by-side table: one line per pack/language, diffusion | retrieval-only."""
    names = list(rep)
    cols = ("handled", "right", "wrongly_declined", "wrong_fact", "declined_unanswerable", "unsupported",
            "own_share_of_right")
    short = {"handled": "handled", "right": "right", "wrongly_declined": "wr.decl", "wrong_fact": "wrong", "declined_unanswerable": "unans.decl",
             "unsupported": "unsup", "own_share_of_right": "own"}
    head = f"{'pack/lang':<26}{'n':>4} " + " | ".join(" ".join(f"{short[c]:>10}" for c in cols) for _ in names)
    lines = [f"{'':<31}" + " | ".join(f"{n:^76}" for n in names), head]
    fmt = lambda v: "-" if v is None else (f"{v * 100:.0f}%" if isinstance(v, float) else str(v))
    for key in rep[names[0]]:
        s0 = rep[names[0]][key]
        lines.append(f"{key:<26}{s0['n']:>4} " + " | ".join(" ".join(f"{fmt(rep[n][key][c]):>10}" for c in cols)
                                                         for n in names))
    return "\n".join(lines)
