"""The remask verify on a tiny untrained embedded model: the plumbing (fixed tokens stay), not the quality."""
import pytest

from avatar import config
from avatar.answer import load_knowledge
from avatar.answer.checks import Candidate
from avatar.answer.checks.remask import content_token_ranges, diffusion_verify
from avatar.answer.diffusion_answerer import DiffusionAnswerer
from avatar.trace import Tracer
from avatar_dev.train.trainer import TrainOptions, train


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny")
    train(TrainOptions(out=out, steps=2, batch=4, size="tiny", vocab_size=600, tokenizer_examples=300))
    cfg = config.load(None, [f"llm.model={out / 'model'}", "llm.threads=1", "llm.gen_length=24"], env={})
    return DiffusionAnswerer(cfg, load_knowledge(cfg), Tracer())


def test_verify_redecodes_only_the_content_tokens(answerer):
    question, text = "Was kostet der Eintritt?", "Der Eintritt kostet 12 Euro."
    ids = answerer.codec.text_ids(text)
    cand = Candidate(text, "de", "info", ids)
    facts = answerer.retrieve(question, "de")
    (s, e), = content_token_ranges(ids, ["12 Euro"], answerer.codec.text_ids)
    out = diffusion_verify(answerer, question, "de", facts)(cand, ["12 Euro"])
    assert out.decode_info["remasked"] == 1 and out.lang == "de"
    tail = len(ids) - e
    assert len(out.token_ids) <= len(ids)  # same-length slot; a filler in it is dropped
    assert out.token_ids[:s] == ids[:s] and out.token_ids[len(out.token_ids) - tail:] == ids[e:]
