"""Tiny randomly initialised models in real Hugging Face folders, for tests and demos.

They decode nonsense, but they exercise everything a real checkpoint does: the folder format,
the loader, family detection, the decode loop, the prompt cache. Architectures:
`modernbert` (bidirectional masked LM, like dllm's ModernBERT-chat), `bert`, `qwen2` (a causal
LM: with family "dream" it is decoded bidirectionally with shifted logits, with "fast-dllm-v2"
causally with an exact prefix cache) and `avatar-mdlm` (the embedded model's architecture).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from avatar.errors import ConfigError

KINDS = ("modernbert", "bert", "qwen2", "avatar-mdlm")
SPECIAL_TOKENS = ["<pad>", "<unk>", "<bos>", "<eos>", "<mask>", "<sep>", "<fact>", "<de>", "<en>",
                  "<neutral>", "<happy>", "<sorry>", "<info>"]  # the embedded model's order: pad=0 ... mask=4

_TEXT = """Das Museum ist heute von 9 bis 18 Uhr geöffnet. Der Eintritt kostet 12 Euro, ermäßigt 8 Euro.
The museum is open today from 9 am to 6 pm. Admission is 12 euros, reduced 8 euros.
Die Garderobe befindet sich im Erdgeschoss links neben dem Eingang. Das Café ist im ersten Stock.
The cloakroom is on the ground floor to the left of the entrance. The café is on the first floor.
Wo sind die Toiletten? Where are the toilets? Wann schließt der Shop? When does the shop close?
Hallo, wie kann ich helfen? Hello, how can I help? Danke schön. Thank you very much. Bis bald!"""


def make_tokenizer(folder: Path, vocab_size: int = 320) -> int:
    """Train a tiny byte-level BPE on a few bilingual sentences; return its vocabulary size."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(_TEXT.splitlines() * 4, trainer)
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "pad_token": "<pad>", "unk_token": "<unk>",
        "bos_token": "<bos>", "eos_token": "<eos>", "mask_token": "<mask>", "sep_token": "<sep>",
        "model_max_length": 512}, indent=1))
    return tok.get_vocab_size()


def make_random_model(folder: str | os.PathLike, kind: str = "modernbert", seed: int = 0,
                      hidden: int = 32, layers: int = 2) -> Path:
    """Write a tiny random model of `kind` (config.json, model.safetensors, tokenizer) to `folder`."""
    if kind not in KINDS:
        raise ConfigError(f"unknown random model kind '{kind}'", hint=f"one of {', '.join(KINDS)}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = make_tokenizer(folder)
    torch.manual_seed(seed)
    ids = dict(pad_token_id=0, bos_token_id=2, eos_token_id=3)
    if kind == "modernbert":
        from transformers import ModernBertConfig, ModernBertForMaskedLM

        model = ModernBertForMaskedLM(ModernBertConfig(
            vocab_size=vocab, hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
            num_attention_heads=2, max_position_embeddings=512, global_attn_every_n_layers=1,
            local_attention=64, cls_token_id=2, sep_token_id=5, **ids))
    elif kind == "bert":
        from transformers import BertConfig, BertForMaskedLM

        model = BertForMaskedLM(BertConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=2 * hidden,
                                           num_hidden_layers=layers, num_attention_heads=2,
                                           max_position_embeddings=512, **ids))
    elif kind == "qwen2":
        from transformers import Qwen2Config, Qwen2ForCausalLM

        model = Qwen2ForCausalLM(Qwen2Config(vocab_size=vocab, hidden_size=hidden, intermediate_size=2 * hidden,
                                             num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
                                             max_position_embeddings=512, **ids))
    else:
        from avatar.llm.embedded_model import AvatarMDLM, AvatarMDLMConfig

        model = AvatarMDLM(AvatarMDLMConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers,
                                            num_attention_heads=2, intermediate_size=2 * hidden))
    model.save_pretrained(str(folder))
    return folder
