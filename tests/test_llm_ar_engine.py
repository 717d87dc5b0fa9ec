"""The AR twin's decode (issue 15): greedy with a KV cache, the diffusion loop's contract, the answerer unchanged."""
import pytest
import torch

from avatar import config
from avatar.answer import load_knowledge
from avatar.answer.diffusion_answerer import DiffusionAnswerer
from avatar.answer.prompt import PromptCodec
from avatar.llm.infill import Slot
from avatar.trace import Tracer
from avatar_dev.train.trainer import TrainOptions, train


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-ar")
    train(TrainOptions(out=out, steps=30, batch=8, size="tiny", vocab_size=600, tokenizer_examples=300, lr=3e-3,
                       warmup=5, arch="ar"))
    return out / "model"


@pytest.fixture(scope="module")
def lm(model_dir):
    from avatar.llm.loader import load_model
    return load_model(model_dir)


def test_loader_gives_the_ar_family_in_plain_torch(lm):
    from avatar.llm.ar_layers import FastAvatarAR
    assert lm.family.name == "avatar-ar" and lm.family.decoder == "autoregressive"
    assert isinstance(lm.model, FastAvatarAR)


def test_greedy_decode_with_kv_cache_equals_rerunning_the_whole_sequence(lm):
    codec = PromptCodec(lm.tokenizer)
    prompt = codec.prompt_ids(["Der Eintritt kostet 5 Euro."], [], "Was kostet der Eintritt?")
    opts = lm.default_options(gen_length=12, block_length=4, repetition_guard=False)
    result = lm.generate(prompt, opts)
    # no cache: the whole reply so far through the model for every token
    p = torch.tensor([prompt])
    reply = []
    with torch.no_grad():
        for _ in range(12):
            logits = lm.model(torch.tensor([reply + [0]]), prompt_cache=lm.model.encode_prompt(p)).logits[0, -1]
            logits[lm.mask_token_id] = -float("inf")
            reply.append(int(logits.argmax()))
            if reply[-1] in lm.eos_token_ids:
                break
    assert result.answer_ids[:len(reply)] == reply
    assert result.steps == len(reply)  # one forward pass per token, none after <eos>
    assert result.prompt_passes == 1 and result.cache == "exact"


def test_infill_keeps_fixed_tokens_and_feeds_them_without_a_pass(lm):
    codec = PromptCodec(lm.tokenizer)
    prompt = codec.prompt_ids(["Der Eintritt kostet 5 Euro."], [], "Was kostet der Eintritt?")
    skeleton = [codec.id["<de>"], Slot(1, "mood"), codec.id["<sep>"], Slot(9, "text")]
    result = lm.infill(prompt, skeleton, lm.default_options(repetition_guard=False))
    assert result.answer_ids[0] == codec.id["<de>"] and result.answer_ids[2] == codec.id["<sep>"]
    decoded = 1 + min(9, len(result.slots[1]) + 1)  # the mood, the text and its <eos> (if it came)
    assert result.steps == decoded
    assert len(result.answer_ids) == 12


def test_banned_tokens_are_never_chosen(lm):
    codec = PromptCodec(lm.tokenizer)
    prompt = codec.prompt_ids(["Der Eintritt kostet 5 Euro."], [], "Was kostet der Eintritt?")
    first = lm.generate(prompt, lm.default_options(gen_length=10))
    banned = tuple(t for t in first.token_ids[:3] if t not in lm.eos_token_ids)
    again = lm.generate(prompt, lm.default_options(gen_length=10, banned_token_ids=banned))
    assert not set(banned) & set(again.answer_ids)


@pytest.mark.parametrize("checks", [False, True])
def test_the_diffusion_answerer_runs_the_twin_unchanged(model_dir, checks):
    cfg = config.load(None, [f"llm.model={model_dir}", "llm.threads=1", f"checks.enabled={str(checks).lower()}"])
    answerer = DiffusionAnswerer(cfg, load_knowledge(cfg), Tracer())
    assert answerer.lm.family.name == "avatar-ar"
    ans = answerer.answer("Was kostet der Eintritt?", "de")
    assert ans.lang == "de" and ans.reply and ans.decode.steps >= 1
