"""Structured infilling: fixed skeleton tokens never change, slots are bounded and end early."""
from __future__ import annotations

import pytest
import torch

from avatar.errors import ConfigError
from avatar.llm.engine import DecodeOptions
from avatar.llm.infill import Slot, lay_out
from avatar.llm.loader import load_model
from avatar.llm.random_model import make_random_model

EOS = 3


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    from transformers import AutoModelForMaskedLM

    root = tmp_path_factory.mktemp("infill")
    plain = {kind: load_model(make_random_model(root / kind, kind), threads=1, family=fam)
             for kind, fam in (("modernbert", None), ("avatar-mdlm", None))}
    folder = make_random_model(root / "eos", "modernbert")
    model = AutoModelForMaskedLM.from_pretrained(str(folder), local_files_only=True)
    with torch.no_grad():
        model.decoder.bias[EOS] += 50.0  # every slot wants to end at once
    model.save_pretrained(str(folder))
    plain["eos"] = load_model(folder, threads=1)
    return plain


def skeleton(lm):
    de, happy, sep = (lm.tokenizer.convert_tokens_to_ids(t) for t in ("<de>", "<happy>", "<sep>"))
    return [de, Slot(1, "mood"), sep, Slot(6, "text"), EOS], (de, sep, EOS)


@pytest.mark.parametrize("kind", ["modernbert", "avatar-mdlm"])
def test_infilling_never_changes_the_fixed_tokens(models, kind):
    lm = models[kind]
    items, (de, sep, eos) = skeleton(lm)
    fixed = {0: de, 2: sep, 9: eos}
    snaps = []
    result = lm.infill(lm.chat_prompt("Hallo?"), items, DecodeOptions(block_length=4, repetition_guard=False),
                       on_step=lambda b, s, x: snaps.append(x))
    assert snaps
    for x in snaps:
        assert all(int(x[i]) == t for i, t in fixed.items())
    assert len(result.answer_ids) == 10 and lm.mask_token_id not in result.answer_ids
    assert len(result.slots[0]) <= 1 and len(result.slots[1]) <= 6 and result.names == ["mood", "text"]
    assert result.token_ids[0] == de and result.token_ids[-1] == eos


def test_a_filler_ends_a_slot_early_and_is_dropped(models):
    lm = models["eos"]
    items, (de, sep, eos) = skeleton(lm)
    result = lm.infill(lm.chat_prompt("Hallo?"), items)
    assert result.slots == [[], []]
    assert result.token_ids == [de, sep, eos]  # fixed tokens stay, even an <eos> in the skeleton
    assert result.slot("text") == ""


def test_a_template_with_mask_ids_is_a_skeleton(models):
    lm = models["avatar-mdlm"]
    de, sep = lm.tokenizer.convert_tokens_to_ids("<de>"), lm.tokenizer.convert_tokens_to_ids("<sep>")
    m = lm.mask_token_id
    layout = lay_out([de, m, sep] + [m] * 5, m)
    assert layout.slot_ranges == [(1, 2), (3, 8)]
    result = lm.infill(lm.chat_prompt("Hallo?"), [de, m, sep] + [m] * 5)
    assert result.answer_ids[0] == de and result.answer_ids[2] == sep


def test_a_skeleton_needs_a_slot_and_valid_items():
    with pytest.raises(ConfigError):
        lay_out([5, 6], mask_id=4)
    with pytest.raises(ConfigError):
        lay_out([5, "x", Slot(2)], mask_id=4)
    with pytest.raises(ConfigError):
        Slot(0)


def test_a_slot_that_loops_is_cut_and_the_skeleton_kept(models):
    lm = models["modernbert"]  # untrained: it repeats one token everywhere
    items, (de, sep, eos) = skeleton(lm)
    items[3] = Slot(12, "text")
    free = lm.infill(lm.chat_prompt("Hallo?"), items, DecodeOptions(repetition_guard=False))
    cut = lm.infill(lm.chat_prompt("Hallo?"), items, DecodeOptions(repetition_guard=True))
    assert len(free.slots[1]) == 12 and len(cut.slots[1]) < 12
    assert cut.answer_ids[0] == de and cut.answer_ids[2] == sep and cut.answer_ids[-1] == eos


def test_every_commit_records_how_sure_the_decoder_was(models):
    from avatar.llm.engine import confidence_stats

    lm = models["avatar-mdlm"]
    items, (de, sep, eos) = skeleton(lm)
    result = lm.infill(lm.chat_prompt("Hallo?"), items, DecodeOptions(block_length=4, repetition_guard=False))
    conf = result.confidence
    assert len(conf) == len(result.answer_ids) == 10
    assert conf[0] == conf[2] == conf[9] == 1.0  # fixed tokens were given, not guessed
    decided = [i for a, b in result.slot_ranges for i in range(a, b)]
    assert decided and all(0.0 < conf[i] <= 1.0 for i in decided)
    stats = confidence_stats(conf, decided)
    assert stats["confidence_min"] == pytest.approx(min(conf[i] for i in decided), abs=1e-4)
    assert stats["confidence_min"] <= stats["confidence_mean"] <= 1.0
    assert confidence_stats(conf, []) == {"confidence_min": 1.0, "confidence_mean": 1.0}
