"""The embedded model's contract with the engine: exact prompt cache, log-probability logits, Auto loading."""
import numpy as np
import torch
from transformers import AutoConfig, AutoModel

from avatar.llm.embedded_model import AvatarMDLM, AvatarMDLMConfig


def tiny(copy_head=True, seed=0):
    torch.manual_seed(seed)
    cfg = AvatarMDLMConfig(vocab_size=97, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                           intermediate_size=48, copy_head=copy_head)
    return AvatarMDLM(cfg).eval()


def ids(b, t, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(15, 97, (b, t), generator=g)


def test_prompt_cache_gives_the_same_answer_logits_as_the_whole_sequence():
    model = tiny()
    x = ids(2, 30)
    with torch.no_grad():
        full = model(x, prompt_len=20).logits
        cached = model(x[:, 20:], prompt_cache=model.encode_prompt(x[:, :20])).logits
    assert full.shape == (2, 30, 97) and cached.shape == (2, 10, 97)
    torch.testing.assert_close(full[:, 20:], cached, rtol=1e-5, atol=1e-5)


def test_prompt_positions_never_see_the_answer():
    model = tiny()
    x = ids(1, 30)
    y = x.clone()
    y[:, 20:] = ids(1, 10, seed=7)
    with torch.no_grad():
        a, b = model(x, prompt_len=20).logits, model(y, prompt_len=20).logits
    torch.testing.assert_close(a[:, :20], b[:, :20])
    assert not torch.allclose(a[:, 20:], b[:, 20:])  # the answer does see its own tokens


def test_logits_are_log_probabilities_of_the_copy_mixture():
    model = tiny()
    x = ids(1, 24)
    with torch.no_grad():
        logits = model(x, prompt_len=16).logits
    torch.testing.assert_close(logits.exp().sum(-1), torch.ones(1, 24), rtol=1e-4, atol=1e-4)


def test_copy_head_moves_probability_onto_prompt_tokens():
    model = tiny()
    with torch.no_grad():
        model.copy_gate.bias.fill_(20.0)  # all weight on copying
        x = ids(1, 24)
        probs = model(x, prompt_len=16).logits[0, 16:].exp()
    in_prompt = torch.zeros(97, dtype=torch.bool)
    in_prompt[x[0, :16]] = True
    assert (probs[:, in_prompt].sum(-1) > 0.99).all()


def test_padding_in_the_prompt_is_ignored():
    model = tiny()
    x = ids(1, 26)
    padded = torch.cat([x[:, :16], torch.zeros(1, 4, dtype=torch.long)], dim=1)  # pad id 0 after the prompt
    with torch.no_grad():
        a = model(x[:, 16:], prompt_cache=model.encode_prompt(x[:, :16])).logits
        b = model(x[:, 16:], prompt_cache=model.encode_prompt(padded)).logits
    torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_saved_folder_loads_through_transformers_auto_classes(tmp_path):
    model = tiny()
    model.save_pretrained(tmp_path)
    assert AutoConfig.from_pretrained(tmp_path).model_type == "avatar-mdlm"
    again = AutoModel.from_pretrained(tmp_path).eval()
    x = ids(1, 20)
    with torch.no_grad():
        torch.testing.assert_close(model(x, prompt_len=12).logits, again(x, prompt_len=12).logits)


def test_labels_give_a_loss_that_can_be_minimised():
    model = tiny().train()
    x = ids(4, 20)
    labels = x.clone()
    labels[:, :12] = -100
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(15):
        loss = model(x, prompt_len=12, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] - 0.5


def test_the_kiosk_loads_the_embedded_model_without_transformers_and_gets_the_same_model(tmp_path, monkeypatch):
    """The shipped folder (config.json, model.safetensors, a bare tokenizer.json) loads as plain torch
    layers and a bare tokenizers.Tokenizer: the same parameters, logits and token ids as through
    transformers' Auto classes, without the ~3 s import of PreTrainedModel."""
    import inspect

    from avatar.llm import loader
    from avatar.llm.mdlm_layers import DEFAULTS, FastAvatarMDLM
    from avatar.llm.numpy_mdlm import NumpyMDLM
    from avatar.llm.random_model import make_random_model

    assert {k: p.default for k, p in inspect.signature(AvatarMDLMConfig.__init__).parameters.items()
            if p.default is not inspect.Parameter.empty} == DEFAULTS
    folder = make_random_model(tmp_path / "m", "avatar-mdlm")
    (folder / "tokenizer_config.json").unlink()  # as shipped: tokenizer.json alone
    native = loader.load_model(folder, threads=1)
    monkeypatch.setattr(loader, "_load_native", lambda *a, **k: None)
    fast = loader.load_model(folder, threads=1)
    monkeypatch.setattr(loader, "_load_embedded", lambda *a, **k: None)
    slow = loader.load_model(folder, threads=1)
    assert isinstance(native.model, NumpyMDLM)
    assert isinstance(fast.model, FastAvatarMDLM) and isinstance(slow.model, AvatarMDLM)
    assert (fast.mask_token_id, fast.eos_token_ids, fast.pad_token_id, fast.vocab_size) == \
        (slow.mask_token_id, slow.eos_token_ids, slow.pad_token_id, slow.vocab_size)
    a, b = fast.model.state_dict(), slow.model.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    x = ids(1, 24) % fast.vocab_size
    with torch.no_grad():
        torch.testing.assert_close(fast.model(x, prompt_len=16).logits, slow.model(x, prompt_len=16).logits)
        # the numpy model (what the kiosk runs): the answer positions' log-probabilities
        np.testing.assert_allclose(native.model(x.numpy(), prompt_len=16).logits[:, 16:],
                                   fast.model(x, prompt_len=16).logits[:, 16:].numpy(), rtol=1e-4, atol=1e-4)
    text = "Die Garderobe ist im Erdgeschoss. Admission is 12 euros!"
    encoded = fast.tokenizer.encode(text, add_special_tokens=False)
    assert encoded == slow.tokenizer.encode(text, add_special_tokens=False)
    for skip in (True, False):
        with_specials = [2, 7, 5, *encoded, 3, 0, 4]
        assert fast.tokenizer.decode(with_specials, skip_special_tokens=skip) == \
            slow.tokenizer.decode(with_specials, skip_special_tokens=skip)
    for token in ("<mask>", "<eos>", "<pad>", "no-such-token"):
        assert fast.tokenizer.convert_tokens_to_ids(token) == slow.tokenizer.convert_tokens_to_ids(token)
