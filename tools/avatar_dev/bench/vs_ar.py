"""The diffusion answerer against its autoregressive twin (issue 15), side by side in one run.

The same questions go to the same answerer (DiffusionAnswerer: retrieval, prompt, decode, checks)
around each model: held-out synthetic venues (evaluate.py's examples, their facts as the prompt),
the hand-written venue packs (pack_eval.py's questions and scoring) and the adversarial set
(bench/adversarial.py). Each model answers with checks off, with checks on (the configured
budget), and with checks on under a total answer budget B (the checks get B minus that model's
median first decode, `max_extra_ratio` off): the budget-matched comparison. Models and modes take
turns on every question, so the shared CPU's load falls on both alike.

`clock="cpu"` (the default) makes the one clock (avatar.trace.now) count this thread's CPU time for
the run: every timing, the decode's ms and the checks' budget included, is then what the answer
costs on a free core. On a 2-core box shared with training runs the wall clock measures the run
queue (seconds per answer at nice 19), and a checks budget on it would skip every check.

Per reply: the outcome (right, wrong, wrongly declined; declined or answered for an unanswerable
question), unsupported content, the answer's time, when the first clause of the first decode was
final (what a streaming voice could start on; with checks on nothing is said before the checks
finish, so there it is the answer's time), and the forward passes spent.
"""
from __future__ import annotations

import contextlib
import random
import shutil
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from avatar.answer.base import Fact, HistoryTurn
from avatar.cancel import NEVER
from avatar.stats import percentile_ms
from avatar.trace import Tracer, now

MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")
TABLES = "checks_tables.json.gz"
_CLAUSE_END = {".", ",", ";", ":", "!", "?"}


@dataclass
class Case:
    set: str                      # heldout | packs-dev | packs-test | adversarial
    pack_key: str
    pack: Any
    question: str
    lang: str
    kind: str
    score: Callable[[Any], tuple[str, bool]]  # Answer -> (outcome, unsupported)
    history: list = field(default_factory=list)
    facts: list | None = None     # the prompt's facts (held-out examples); None: the answerer retrieves


@dataclass
class Row:
    set: str
    model: str
    mode: str
    lang: str
    kind: str
    question: str
    reply: str
    source: str
    outcome: str                  # right | wrong | wrongly_declined | declined | answered_unanswerable | smalltalk
    unsupported: bool
    answer_ms: float
    first_clause_ms: float
    decode_ms: float              # the first decode alone
    steps: int                    # forward passes of the first decode (the prompt pass not counted)
    passes: int                   # every forward pass of the answer: all decodes, their prompt passes
    decodes: int
    tokens: int


# --- the cases ----------------------------------------------------------------------------------
def heldout_cases(n: int, seed: int = 1) -> list[Case]:
    """evaluate.held_out_examples' examples (the same loop, so the same questions), with their venue's pack."""
    from avatar_dev.bench.adversarial import venue_pack
    from avatar_dev.train import corpus
    from avatar_dev.train.evaluate import score

    rng = random.Random(seed)
    cases: list[Case] = []
    while len(cases) < n:
        venue_seed = 2 * rng.randrange(10**8) + 1
        venue, pack = corpus.Venue(venue_seed), venue_pack(venue_seed)
        for _ in range(4):
            ex = corpus.make_example(rng, venue, ("de", "en")[len(cases) % 2])

            def scorer(ans, ex=ex):
                s = score(ex, SimpleNamespace(text=ans.reply, mood=ans.mood, lang=ans.lang, well_formed=True), 0, 0, 0)
                if ex.kind == "smalltalk":
                    return "smalltalk", False
                if ex.kind == "decline":
                    return ("declined" if s.declined else "answered_unanswerable"), bool(s.unsupported)
                return ("right" if s.right else "wrongly_declined" if s.declined else "wrong"), bool(s.unsupported)

            facts = [Fact(f"heldout-{i}", ex.lang, text, "", 1.0) for i, text in enumerate(ex.facts)]
            history = [HistoryTurn(q, r, ex.lang) for q, r in ex.history]
            cases.append(Case("heldout", f"heldout-{venue_seed}", pack, ex.question, ex.lang, ex.kind, scorer,
                              history, facts))
    return cases[:n]


def pack_cases(root: Path, per_pack: int = 0) -> list[Case]:
    """The questions of every pack under root (pack_eval's scoring); per_pack > 0: the first that many."""
    from avatar.answer.knowledge import load_pack
    from avatar_dev.train import pack_eval

    cases = []
    for folder in pack_eval.pack_folders(root):
        pack = load_pack(folder)
        text = pack_eval._pack_text(pack)
        questions = pack_eval.load_questions(folder)
        for q in questions[:per_pack] if per_pack else questions:
            def scorer(ans, q=q):
                outcome = pack_eval.score(q, ans.reply, ans.mood)
                return ("wrong" if outcome == "wrong_fact" else outcome), bool(
                    pack_eval.unsupported_numbers(ans.reply, text, q.q))

            cases.append(Case(f"packs-{Path(root).name}", f"pack-{folder.name}", pack, q.q, q.lang, q.kind, scorer,
                              [HistoryTurn(hq, hr, q.lang) for hq, hr in q.history]))
    return cases


def adversarial_cases(n: int, seed: int = 0) -> list[Case]:
    from avatar_dev.bench.adversarial import generate_cases, score_reply, venue_pack

    cases, packs = [], {}
    for case in generate_cases(n, seed):
        pack = packs.setdefault(case.venue_seed, venue_pack(case.venue_seed))

        def scorer(ans, case=case, pack=pack):
            v = score_reply(case, ans, pack.facts(case.lang))
            if case.expect_decline:
                return ("declined" if v["correct"] else "answered_unanswerable"), v["unsupported"]
            return ("right" if v["correct"] else "wrongly_declined" if v["declined"] else "wrong"), v["unsupported"]

        cases.append(Case("adversarial", f"adv-{case.venue_seed}", pack, case.question, case.lang, case.kind, scorer))
    return cases


# --- measuring ----------------------------------------------------------------------------------
@contextlib.contextmanager
def one_clock(kind: str):
    """"cpu": avatar.trace.now (every timing in the project) counts this thread's CPU time meanwhile."""
    from avatar import trace

    if kind == "wall":
        yield
        return
    if kind != "cpu":
        raise ValueError(f"clock {kind!r}: expected cpu or wall")
    real = trace.time
    trace.time = SimpleNamespace(perf_counter=time.thread_time, sleep=time.sleep)
    try:
        yield
    finally:
        trace.time = real


class DecodeMeter:
    """Wraps the loaded model's infill (the answerer's and the checks' only way to decode): counts the
    decodes and forward passes of an answer, and times the first clause of its first decode."""

    def __init__(self, lm):
        self.lm, self._infill = lm, lm.infill
        lm.infill = self.infill
        self.reset(now())

    def reset(self, t0: float) -> None:
        self.t0, self.passes, self.decodes, self.first_ms, self.steps = t0, 0, 0, 0.0, 0
        self.clause_at: float | None = None

    def infill(self, prompt_ids, skeleton, options=None, cancel=NEVER, on_step=None):
        first = self.decodes == 0
        seen: list[tuple[float, Any]] = []
        observer = on_step
        if first:
            def observer(b, s, x):
                seen.append((now(), x))
                if on_step is not None:
                    on_step(b, s, x)
        result = self._infill(prompt_ids, skeleton, options, cancel=cancel, on_step=observer)
        self.decodes += 1
        self.passes += result.steps + 1  # and the prompt's own pass
        if first:
            self.first_ms, self.steps = result.ms, result.steps
            self.clause_at = self._clause_final(seen, result)
        return result

    def _clause_final(self, seen, result) -> float | None:
        """When the reply's first clause (up to a clause mark, or the whole reply) was all committed."""
        lm = self.lm
        stops = {*lm.eos_token_ids, lm.pad_token_id}
        start = result.slot_ranges[-1][0] if result.slot_ranges else 3  # the text slot
        for t, x in seen:
            ids = x.tolist()
            if lm.mask_token_id in ids[:start]:
                continue  # the mood is not decided yet
            prefix = []
            for tok in ids[start:]:
                if tok == lm.mask_token_id:
                    break
                prefix.append(tok)
            if any(tok in stops for tok in prefix) or len(prefix) == len(ids) - start:
                return t  # the reply is complete
            pieces = [lm.decode_text([tok]).strip() for tok in prefix]
            for j in range(len(pieces) - 1):
                if pieces[j] in _CLAUSE_END and not pieces[j + 1][:1].isdigit():  # 10:30 and 9.50 go on
                    return t
        return seen[-1][0] if seen else None


def snapshot(model_dir: Path, into: Path, tables_from: Path) -> Path:
    """A still copy of a model folder (a training run rewrites its model/ every few minutes), with the
    checks tables of `tables_from` if it has none (they come from the training corpus, not the weights)."""
    into.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        shutil.copy2(model_dir / name, into / name)
    src = model_dir / TABLES if (model_dir / TABLES).exists() else tables_from / TABLES
    if src.exists():
        shutil.copy2(src, into / TABLES)
    for name in ("training.txt",):
        if (model_dir / name).exists():
            shutil.copy2(model_dir / name, into / name)
    return into


def run(models: dict[str, Path], cases: list[Case], cfg, budgets: tuple[float, ...] = (80.0,),
        tables_from: Path | None = None, progress: Callable[[str, int, int], None] | None = None,
        clock: str = "cpu") -> dict[str, Any]:
    """Every case to every model, checks off and on, then under each total budget; rows and a report."""
    with one_clock(clock):
        result = _run(models, cases, cfg, budgets, tables_from, progress)
    return {"clock": clock, **result}


def _run(models, cases, cfg, budgets, tables_from, progress) -> dict[str, Any]:
    from avatar.answer.diffusion_answerer import DiffusionAnswerer
    from avatar.llm.loader import load_configured

    work = Path(tempfile.mkdtemp(prefix="vs-ar-"))
    lms, meters, info = {}, {}, {}
    for name, folder in models.items():
        still = snapshot(Path(folder), work / name, Path(tables_from or folder))
        lm = load_configured(cfg.llm, still, family=None)
        lms[name], meters[name] = lm, DecodeMeter(lm)
        training = (still / "training.txt").read_text().split() if (still / "training.txt").exists() else []
        info[name] = {"folder": str(folder), "family": lm.family.name, "decoder": lm.family.decoder,
                      "params": parameter_count(lm.model),
                      "training": dict(zip(training[0::2], training[1::2]))}

    def answerer_for(cache, name, mode, case, overrides):
        key = (name, mode, case.pack_key)
        if key not in cache:
            for k in [k for k in cache if k[0] == name and k[1] == mode]:
                del cache[k]  # one pack at a time per model and mode
            # no llm.max_ms: the comparison times every decode whole (its budgets are its own, --budget-ms)
            answerer = DiffusionAnswerer(cfg.with_overrides({"llm.max_ms": 0.0, **overrides}), case.pack, Tracer(),
                                         lm=lms[name])
            if case.facts is not None:  # held-out: the example's facts are the prompt, as evaluate.py has them
                answerer.retrieve = lambda question, lang, history=(), facts=case.facts: list(facts)
            cache[key] = answerer
        return cache[key]

    def ask(cache, name, mode, case, overrides, checked) -> Row:
        answerer = answerer_for(cache, name, mode, case, overrides)
        meter = meters[name]
        t0 = now()
        meter.reset(t0)
        ans = answerer.answer(case.question, case.lang, case.history)
        answer_ms = (now() - t0) * 1000.0
        outcome, unsupported = case.score(ans)
        clause = answer_ms if checked or meter.clause_at is None else (meter.clause_at - t0) * 1000.0
        return Row(case.set, name, mode, case.lang, case.kind, case.question, ans.reply, ans.source, outcome,
                   bool(unsupported), round(answer_ms, 2), round(clause, 2), round(meter.first_ms, 2), meter.steps,
                   meter.passes, meter.decodes, int(ans.decode.tokens))

    rows: list[Row] = []
    cache: dict = {}
    names = list(models)
    for name in names if cases else []:  # torch's lazy set-up, before anything is timed
        for mode, overrides, checked in (("checked", {"checks.enabled": True}, True),):
            ask(cache, name, mode, cases[0], overrides, checked)
    plain = [("unchecked", {"checks.enabled": False}, False), ("checked", {"checks.enabled": True}, True)]
    for i, case in enumerate(cases):  # models and modes take turns on every question
        order = [(n, m) for n in names for m in plain]
        for name, (mode, overrides, checked) in (order if i % 2 == 0 else order[::-1]):
            rows.append(ask(cache, name, mode, case, overrides, checked))
        if progress:
            progress("checks off/on", i + 1, len(cases))
    first_p50 = {n: statistics.median([r.decode_ms for r in rows if r.model == n and r.mode == "unchecked"])
                 for n in names}
    budget_modes = []
    for b in budgets:
        for n in names:
            left = int(max(1.0, b - first_p50[n]))  # the setting must be > 0  # what the checks get after this model's usual first decode
            budget_modes.append((n, f"budget{b:g}", {"checks.enabled": True, "budget.checks": left,
                                                     "checks.max_extra_ratio": 0.0}))
    for i, case in enumerate(cases if budget_modes else []):
        for name, mode, overrides in (budget_modes if i % 2 == 0 else budget_modes[::-1]):
            rows.append(ask(cache, name, mode, case, overrides, True))
        if progress:
            progress("budget-matched", i + 1, len(cases))
    shutil.rmtree(work, ignore_errors=True)
    return {"models": info, "budgets": list(budgets), "first_decode_p50_ms": first_p50,
            "report": report(rows, budgets), "rows": [asdict(r) for r in rows]}


# --- reporting ----------------------------------------------------------------------------------
def summarise(rows: list[Row], budgets=()) -> dict[str, Any]:
    share = lambda xs: round(sum(xs) / len(xs), 4) if xs else None
    answerable = [r for r in rows if r.outcome in ("right", "wrong", "wrongly_declined")]
    unanswerable = [r for r in rows if r.outcome in ("declined", "answered_unanswerable")]
    scored = answerable + unanswerable
    decode_p50 = percentile_ms([r.decode_ms for r in rows], 50)
    out = {"n": len(rows), "answerable": len(answerable), "unanswerable": len(unanswerable),
           "handled": share([r.outcome in ("right", "declined") for r in scored]),
           "right": share([r.outcome == "right" for r in answerable]),
           "wrong": share([r.outcome == "wrong" for r in answerable]),
           "wrongly_declined": share([r.outcome == "wrongly_declined" for r in answerable]),
           "declined_unanswerable": share([r.outcome == "declined" for r in unanswerable]),
           "unsupported": share([r.unsupported for r in scored]),
           "own_share_of_right": share([r.source == "diffusion" for r in answerable if r.outcome == "right"]),
           "answer_p50_ms": percentile_ms([r.answer_ms for r in rows], 50),
           "answer_p95_ms": percentile_ms([r.answer_ms for r in rows], 95),
           "first_clause_p50_ms": percentile_ms([r.first_clause_ms for r in rows], 50),
           "first_clause_p95_ms": percentile_ms([r.first_clause_ms for r in rows], 95),
           "decode_p50_ms": decode_p50,
           "steps_mean": round(statistics.fmean(r.steps for r in rows), 2) if rows else None,
           "tokens_mean": round(statistics.fmean(r.tokens for r in rows), 2) if rows else None,
           "passes_mean": round(statistics.fmean(r.passes for r in rows), 2) if rows else None,
           "decodes_mean": round(statistics.fmean(r.decodes for r in rows), 2) if rows else None}
    for b in budgets:
        out[f"decodes_in_{b:g}ms"] = int(b // decode_p50) if decode_p50 else None  # whole decodes a budget holds
        out[f"on_time_{b:g}ms"] = share([r.answer_ms <= b for r in rows])
        out[f"right_on_time_{b:g}ms"] = share([r.outcome == "right" and r.answer_ms <= b for r in answerable])
    return out


def report(rows: list[Row], budgets=()) -> dict[str, Any]:
    """{set: {model: {mode: summary}}}, with "all" over every set."""
    sets = list(dict.fromkeys(r.set for r in rows)) + ["all"]
    out: dict[str, Any] = {}
    for s in sets:
        mine = [r for r in rows if s == "all" or r.set == s]
        out[s] = {}
        for model in dict.fromkeys(r.model for r in mine):
            out[s][model] = {mode: summarise([r for r in mine if r.model == model and r.mode == mode], budgets)
                             for mode in dict.fromkeys(r.mode for r in mine if r.model == model)}
    return out


def format_report(result: dict[str, Any]) -> str:
    budgets = result.get("budgets", [])
    cols = [("right", "right"), ("wrongly_declined", "wr.decl"), ("declined_unanswerable", "unans.decl"),
            ("unsupported", "unsup"), ("first_clause_p50_ms", "clause50"), ("answer_p50_ms", "answer50"),
            ("answer_p95_ms", "answer95"), ("steps_mean", "steps"), ("passes_mean", "passes")]
    cols += [(f"decodes_in_{b:g}ms", f"dec/{b:g}ms") for b in budgets]
    cols += [(f"right_on_time_{b:g}ms", f"right<{b:g}ms") for b in budgets]
    fmt = lambda k, v: "-" if v is None else (f"{v * 100:.0f}%" if isinstance(v, float) and not k.endswith(
        ("_ms", "_mean")) else f"{v:g}")
    lines = []
    for s, by_model in result["report"].items():
        lines.append(f"== {s}")
        lines.append(f"{'model':<12}{'mode':<12}{'n':>5}" + "".join(f"{short:>12}" for _, short in cols))
        for model, modes in by_model.items():
            for mode, summ in modes.items():
                lines.append(f"{model:<12}{mode:<12}{summ['n']:>5}" + "".join(f"{fmt(k, summ.get(k)):>12}" for k, _ in cols))
    return "\n".join(lines)


def parameter_count(model) -> int:
    """Parameters of a torch module or of the numpy model (numpy_mdlm.NumpyMDLM)."""
    if hasattr(model, "num_parameters"):
        return int(model.num_parameters())
    return sum(p.numel() for p in model.parameters())
