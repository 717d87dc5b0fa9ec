"""Loading model folders: family detection, clear errors for folders that are not usable models."""
from __future__ import annotations

import json
import shutil

import pytest
import torch

from avatar.errors import DeviceError, ModelError
from avatar.llm.families import FAMILIES, detect_family
from avatar.llm.loader import load_model
from avatar.llm.random_model import make_random_model


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("load")
    return {kind: make_random_model(root / kind, kind) for kind in ("modernbert", "bert", "qwen2", "avatar-mdlm")}


def copy(folder, tmp_path):
    return shutil.copytree(folder, tmp_path / "copy")


def test_families_are_detected_from_config_json(folders):
    assert load_model(folders["modernbert"], threads=1).family.name == "modernbert-chat"
    assert load_model(folders["bert"], threads=1).family.name == "masked-lm"
    assert load_model(folders["avatar-mdlm"], threads=1).family.name == "avatar-mdlm"
    assert detect_family({"model_type": "llada", "architectures": ["LLaDAModelLM"]}).name == "llada"
    assert detect_family({"model_type": "Dream", "architectures": ["DreamModel"]}).name == "dream"
    assert detect_family({"model_type": "qwen2"}, folders["qwen2"].parent / "Fast_dLLM_v2_1.5B").name == "fast-dllm-v2"


def test_an_explicit_family_overrides_detection(folders):
    lm = load_model(folders["qwen2"], family="dream", threads=1)
    assert lm.family.name == "dream" and lm.family.logit_shift
    assert lm.forward.force_bidirectional  # a stock causal LM decoded Dream-style


def test_a_causal_lm_without_a_family_is_refused(folders):
    with pytest.raises(ModelError, match="family") as info:
        load_model(folders["qwen2"], threads=1)
    assert info.value.hint and "llm.family" in info.value.hint


def test_family_table_rows_are_complete():
    for fam in FAMILIES.values():
        assert fam.attention in ("bidirectional", "prompt-causal", "causal-ar-adapted", "causal")
        assert fam.decoder in ("diffusion", "autoregressive")
        assert fam.chat_template and "{user}" in fam.chat_template
        assert fam.cache_kind in ("exact", "approximate", "none")
    assert FAMILIES["avatar-mdlm"].cache_kind == "exact"
    assert FAMILIES["avatar-ar"].cache_kind == "exact" and FAMILIES["avatar-ar"].decoder == "autoregressive"
    assert FAMILIES["llada"].cache_kind == "none" and FAMILIES["dream"].logit_shift


def test_corrupt_safetensors_is_a_model_error(folders, tmp_path):
    folder = copy(folders["modernbert"], tmp_path)
    (folder / "model.safetensors").write_bytes(b"\x00garbage" * 10)
    with pytest.raises(ModelError, match="safetensors") as info:
        load_model(folder)
    assert info.value.hint


def test_truncated_safetensors_is_a_model_error(folders, tmp_path):
    folder = copy(folders["modernbert"], tmp_path)
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="truncated|safetensors"):
        load_model(folder)


@pytest.mark.parametrize("missing, words", [("config.json", "config.json"), ("model.safetensors", "weights"),
                                            ("tokenizer.json", "tokenizer")])
def test_missing_files_are_model_errors(folders, tmp_path, missing, words):
    folder = copy(folders["modernbert"], tmp_path)
    (folder / missing).unlink()
    with pytest.raises(ModelError, match=words):
        load_model(folder)


def test_missing_folder_and_bad_config_are_model_errors(folders, tmp_path):
    with pytest.raises(ModelError, match="not found"):
        load_model(tmp_path / "nothing")
    folder = copy(folders["modernbert"], tmp_path)
    (folder / "config.json").write_text("{not json")
    with pytest.raises(ModelError, match="JSON"):
        load_model(folder)


def test_a_tokenizer_without_mask_token_is_a_model_error(folders, tmp_path):
    folder = copy(folders["qwen2"], tmp_path)
    tok = json.loads((folder / "tokenizer.json").read_text())
    tok["added_tokens"] = [t for t in tok["added_tokens"] if t["content"] != "<mask>"]
    tok["model"]["vocab"].pop("<mask>")
    (folder / "tokenizer.json").write_text(json.dumps(tok))
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    cfg.pop("mask_token")
    (folder / "tokenizer_config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelError, match="mask token"):
        load_model(folder, family="fast-dllm-v2")


def test_a_bare_tokenizer_json_is_enough(folders, tmp_path):
    folder = copy(folders["avatar-mdlm"], tmp_path)
    (folder / "tokenizer_config.json").unlink()
    lm = load_model(folder, threads=1)
    assert lm.mask_token_id == 4 and lm.eos_token_ids == (3,) and lm.pad_token_id == 0


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message for machines without CUDA")
def test_cuda_without_a_gpu_is_a_device_error(folders):
    with pytest.raises(DeviceError, match="CUDA") as info:
        load_model(folders["modernbert"], device="cuda")
    assert "cpu" in info.value.hint
