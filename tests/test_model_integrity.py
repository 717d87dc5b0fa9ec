"""Model files are checked when they load: a shipped model against its manifest sha256 (remembered
by size and mtime), a model the answerer cannot write its record with refused by name."""
from __future__ import annotations

import os
import shutil

import pytest

from avatar import config, integrity
from avatar.answer import load_answer_model, make_answerer
from avatar.answer.prompt import RECORD_TOKENS
from avatar import manifest
from avatar.errors import ModelError
from avatar.llm.loader import load_model
from avatar.llm.random_model import make_random_model
from avatar.paths import ROOT

SHIPPED = ROOT / "models" / "avatar-mdlm"


@pytest.fixture
def models(tmp_path, monkeypatch):
    """A copy of the shipped models folder (manifest and embedded model), as AVATAR_MODELS."""
    root = tmp_path / "models"
    root.mkdir()
    shutil.copy2(ROOT / "models" / "manifest.toml", root / "manifest.toml")
    shutil.copytree(SHIPPED, root / "avatar-mdlm")
    monkeypatch.setenv("AVATAR_MODELS", str(root))
    return root


def corrupt_in_place(path):
    """Flip bytes near the end (tensor data, not the header): same size, still a readable file."""
    data = bytearray(path.read_bytes())
    for i in range(len(data) - 64, len(data) - 32):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_shipped_model_with_damaged_bytes_is_refused_naming_the_file(models):
    weights = models / "avatar-mdlm" / "model.safetensors"
    size = weights.stat().st_size
    corrupt_in_place(weights)
    assert weights.stat().st_size == size
    with pytest.raises(ModelError) as info:
        load_model(models / "avatar-mdlm", threads=1)
    assert "model.safetensors" in info.value.message and "sha256" in info.value.message
    assert "reinstall" in info.value.hint and "avatar models --verify" in info.value.hint


def test_a_good_check_is_remembered_and_a_changed_file_is_hashed_again(models, monkeypatch):
    folder = models / "avatar-mdlm"
    assert integrity.check_model(folder).state == "verified"
    assert (models / integrity.VERIFIED_DIR / "avatar-mdlm.json").is_file()

    hashed = []
    real = manifest.sha256_file
    monkeypatch.setattr(manifest, "sha256_file", lambda p, progress=None: hashed.append(p) or real(p))
    assert integrity.check_model(folder).state == "cached" and hashed == []  # later starts only stat
    lm = load_model(folder, threads=1)  # the loader's own check is the cached one too
    assert lm.family.name == "avatar-mdlm" and hashed == []

    weights = folder / "model.safetensors"
    corrupt_in_place(weights)  # rewritten in place: same size, new mtime
    with pytest.raises(ModelError, match="model.safetensors"):
        integrity.check_model(folder)
    assert hashed == [weights]


def test_the_same_size_and_mtime_in_another_folder_is_not_taken_from_the_cache(models, tmp_path):
    assert integrity.check_model(models / "avatar-mdlm").state == "verified"
    other = tmp_path / "other" / "models"
    shutil.copytree(models, other)  # copy2 keeps sizes and mtimes; the cache is keyed by path
    shutil.rmtree(other / integrity.VERIFIED_DIR)
    weights = other / "avatar-mdlm" / "model.safetensors"
    stat = weights.stat()
    corrupt_in_place(weights)
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(ModelError, match="damaged"):
        integrity.check_model(other / "avatar-mdlm")


def test_a_foreign_model_folder_loads_without_the_check_for_benchmarks_but_not_as_the_answerer(tmp_path):
    folder = shutil.copytree(SHIPPED, tmp_path / "my-model")
    assert integrity.check_model(folder).state == "foreign"
    assert load_model(folder, threads=1).family.name == "avatar-mdlm"
    with pytest.raises(ModelError, match="listed in no model manifest"):
        load_model(folder, threads=1, listed_only=True)


def test_a_bert_style_masked_lm_is_refused_as_the_answerer_naming_what_it_lacks(tmp_path):
    folder = make_random_model(tmp_path / "bert", "bert")
    manifest.add_entry(manifest.ModelEntry("bert", "llm", "test", manifest.hash_folder(folder)), tmp_path)
    cfg = config.load(sets=[f"llm.model={folder}", "llm.threads=1"], env={})
    with pytest.raises(ModelError) as info:
        load_answer_model(cfg)
    message = info.value.message
    assert "masked-lm" in message and "the kiosk's answerer" in message
    assert "<user>" in message and "<bot>" in message and "skeleton" not in message
    assert "avatar-mdlm" in info.value.hint
    # the kiosk (and `avatar ask --model`) says so and answers from the knowledge pack instead
    notices: list[str] = []
    answerer, fallback = make_answerer(cfg, notices=notices)
    assert fallback is None and type(answerer).__name__ == "RetrievalAnswerer"
    assert notices and "lacks" in notices[0] and "<user>" in notices[0]
    # the loader alone still loads it for other uses (benchmarks of other families)
    assert load_model(folder, threads=1).family.name == "masked-lm"


def test_the_shipped_model_has_every_token_the_answerer_writes():
    cfg = config.load(sets=[f"llm.model={SHIPPED}", "llm.threads=1"], env={})
    lm = load_answer_model(cfg)
    assert set(RECORD_TOKENS) <= set(lm.tokenizer.get_vocab())


def test_doctor_reports_a_damaged_model_and_the_verified_one(models):
    from avatar.commands import doctor

    cfg = config.load(sets=[f"llm.model={models / 'avatar-mdlm'}", "llm.threads=1"], env={})
    ok = doctor._llm(cfg)
    assert ok.status == "ok" and "files verified" in ok.detail
    corrupt_in_place(models / "avatar-mdlm" / "model.safetensors")
    bad = doctor._llm(cfg)
    assert bad.status == "missing" and "model.safetensors" in bad.detail and "avatar models --verify" in bad.hint


def test_a_whisper_folder_given_directly_is_checked_against_the_manifest(tmp_path):
    from avatar.asr.whisper_asr import WhisperASR

    models = tmp_path / "models"
    folder = models / "whisper-tiny-test"
    folder.mkdir(parents=True)
    (folder / "model.bin").write_bytes(b"\x01" * 64)
    manifest.add_entry(manifest.ModelEntry("whisper-tiny-test", "asr", "test", {"model.bin": "0" * 64}), models)
    cfg = config.load(env={})
    with pytest.raises(ModelError, match="model.bin is damaged"):
        WhisperASR(cfg.asr, ["de", "en"], model_dir=folder)


# --- a model folder outside models/ (issue 40) -------------------------------------------------------------
def test_a_model_folder_outside_models_is_refused_by_the_answerer_until_its_sha256_are_recorded(tmp_path, capsys):
    from avatar import cli

    folder = shutil.copytree(SHIPPED, tmp_path / "disk" / "avatar-mdlm")
    cfg = config.load(sets=[f"llm.model={folder}", "llm.threads=1"], env={})
    with pytest.raises(ModelError) as info:
        load_answer_model(cfg)
    assert "listed in no model manifest" in info.value.message and "--in-place" in info.value.hint
    notices: list[str] = []
    answerer, _ = make_answerer(cfg, notices=notices)  # the kiosk: retrieval, and it says why
    assert type(answerer).__name__ == "RetrievalAnswerer" and "listed in no model manifest" in notices[0]

    assert cli.main(["models", "import", str(folder), "--in-place"]) == 0
    assert "registered avatar-mdlm" in capsys.readouterr().out
    assert integrity.check_model(folder).state == "verified"
    assert load_answer_model(cfg).family.name == "avatar-mdlm"
    corrupt_in_place(folder / "model.safetensors")  # checked like models/'s: a damaged byte is found
    with pytest.raises(ModelError, match="model.safetensors is damaged"):
        load_answer_model(cfg)


def _with_nan(folder):
    from safetensors.numpy import load_file, save_file

    weights = folder / "model.safetensors"
    tensors = load_file(str(weights))
    name = next(n for n, t in sorted(tensors.items()) if t.dtype.kind == "f" and t.ndim == 2)
    tensors[name][0, 0] = float("nan")
    save_file(tensors, str(weights))
    return name


@pytest.mark.parametrize("backend", ["auto", "torch"])
def test_a_model_that_produces_nan_is_refused_at_load(tmp_path, backend):
    if backend == "torch":
        pytest.importorskip("torch")
    folder = shutil.copytree(SHIPPED, tmp_path / "nan-model")
    _with_nan(folder)
    manifest.add_entry(manifest.ModelEntry("nan-model", "llm", "test", manifest.hash_folder(folder)), tmp_path)
    assert integrity.check_model(folder).state == "verified"  # its files are as recorded: the values are wrong
    with pytest.raises(ModelError) as info:
        load_model(folder, threads=1, backend=backend)
    assert "NaN or infinite" in info.value.message and "train it again" in info.value.hint
