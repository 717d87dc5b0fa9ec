"""The kiosk runs the shipped model in numpy (avatar/llm/numpy_mdlm.py) and never imports torch:
the same replies as the torch layers it was trained in, refused cleanly when its files do not fit."""
import json
import subprocess
import sys

import numpy as np
import pytest

from avatar.errors import ModelError
from avatar.llm import loader
from avatar.llm.numpy_mdlm import NumpyMDLM
from avatar.paths import resolve

SHIPPED = resolve("models/avatar-mdlm")
QUESTIONS = ["where are the toilets", "Wann habt ihr heute geöffnet?", "how much is a ticket for children",
             "Gibt es ein Café?", "can I bring my dog", "Wo ist die Garderobe?"]


@pytest.fixture(scope="module")
def both():
    native = loader.load_model(SHIPPED, threads=1)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(loader, "_load_native", lambda *a, **k: None)
        torch_lm = loader.load_model(SHIPPED, threads=1)
    return native, torch_lm


def test_the_shipped_model_loads_in_numpy(both):
    native, torch_lm = both
    assert isinstance(native.model, NumpyMDLM) and type(torch_lm.model).__name__ == "FastAvatarMDLM"
    assert native.model.num_parameters() == sum(p.numel() for p in torch_lm.model.parameters())


def test_numpy_and_torch_give_the_same_log_probabilities(both):
    import torch

    native, torch_lm = both
    prompt = native.chat_prompt("where are the toilets", system="The toilets are in the basement.")
    answer = [native.mask_token_id] * 48
    answer[:3] = prompt[-3:]
    got = native.model(np.array([answer]), prompt_cache=native.model.encode_prompt(np.array([prompt]))).logits[0]
    with torch.no_grad():
        cache = torch_lm.model.encode_prompt(torch.tensor([prompt]))
        want = torch_lm.model(input_ids=torch.tensor([answer]), prompt_cache=cache).logits[0].numpy()
    assert got.shape == want.shape and np.isfinite(got).all()
    probable = want > -20  # the tail of the vocabulary sits at the floor of log(p + 1e-12)
    np.testing.assert_allclose(got[probable], want[probable], atol=2e-4)
    assert (got.argmax(-1) == want.argmax(-1)).all()


def test_numpy_and_torch_decode_the_same_replies(both):
    native, torch_lm = both
    for question in QUESTIONS:
        prompt = native.chat_prompt(question)
        a, b = native.generate(prompt), torch_lm.generate(prompt)
        assert (a.text, a.answer_ids, a.steps) == (b.text, b.answer_ids, b.steps), question
        np.testing.assert_allclose(a.confidence, b.confidence, atol=1e-4)


def test_weights_that_do_not_fit_the_config_are_refused_by_name(tmp_path):
    import shutil

    from safetensors.numpy import load_file, save_file

    folder = tmp_path / "m"
    shutil.copytree(SHIPPED, folder)
    weights = load_file(str(folder / "model.safetensors"))
    del weights["copy_gate.bias"]
    weights["blocks.0.qkv.weight"] = weights["blocks.0.qkv.weight"][:10]
    save_file(weights, str(folder / "model.safetensors"))
    with pytest.raises(ModelError) as err:
        loader._load_native(folder, json.loads((folder / "config.json").read_text()),
                            loader.get_family("avatar-mdlm"))
    assert "copy_gate.bias" in str(err.value) and "blocks.0.qkv.weight" in str(err.value)


def test_half_precision_weights_go_to_torch(tmp_path):
    import torch
    from safetensors.torch import load_file, save_file

    folder = tmp_path / "m"
    import shutil

    shutil.copytree(SHIPPED, folder)
    save_file({k: v.to(torch.bfloat16) for k, v in load_file(str(folder / "model.safetensors")).items()},
              str(folder / "model.safetensors"))
    config = json.loads((folder / "config.json").read_text())
    assert loader._load_native(folder, config, loader.get_family("avatar-mdlm")) is None


def test_the_kiosk_answerer_never_imports_torch():
    """Importing torch is half of a cold start on the 2-core box: the answer stage, built as `avatar
    ask` and the kiosk build it, must not need it."""
    code = ("import sys\n"
            "from avatar.config import load\n"
            "from avatar.answer import make_answerer\n"
            "made = make_answerer(load())\n"
            "a = made[0] if isinstance(made, tuple) else made\n"
            "reply = a.answer('where are the toilets')\n"
            "print(type(a).__name__, 'torch' in sys.modules, 'transformers' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-3:] == ["DiffusionAnswerer", "False", "False"], out.stdout


def test_llm_backend_torch_keeps_torch_and_a_wrong_name_is_refused():
    from avatar.config import load

    cfg = load(sets=["llm.backend=torch"])
    lm = loader.load_configured(cfg.llm)
    assert lm.backend == "torch" and type(lm.model).__name__ == "FastAvatarMDLM"
    assert loader.load_configured(load().llm).backend == "numpy"
    with pytest.raises(ModelError, match="llm.backend"):
        loader.load_model(SHIPPED, backend="jax")


def test_without_torch_the_kiosk_still_answers_and_a_torch_model_is_refused_clearly(tmp_path):
    """An install for the kiosk alone has no torch: the embedded model runs; what needs torch says so."""
    blocker = tmp_path / "site" / "torch"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('no torch in this install')\n")
    code = ("import sys\n"
            "from avatar.config import load\n"
            "from avatar.errors import ModelError\n"
            "from avatar.llm.loader import load_configured\n"
            "lm = load_configured(load().llm)\n"
            "print(lm.backend, lm.generate(lm.chat_prompt('where are the toilets')).steps > 0)\n"
            "try:\n"
            "    load_configured(load(sets=['llm.backend=torch']).llm)\n"
            "except ModelError as exc:\n"
            "    print('refused:', exc.message, '|', exc.hint)\n")
    import os

    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'site'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "numpy True"
    assert lines[1].startswith("refused:") and "needs PyTorch" in lines[1] and "pip install torch" in lines[1]


def test_llm_threads_sets_numpys_blas_threads():
    """llm.threads is what torch.set_num_threads was: the BLAS numpy's model runs on (1 by default, so
    the decode does not spin on the core ASR and TTS need)."""
    from threadpoolctl import threadpool_info

    loader.load_model(SHIPPED, threads=1)
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    assert blas and all(i["num_threads"] == 1 for i in blas)
