"""The embedded bilingual masked-diffusion model (`avatar-mdlm`): a small pre-norm transformer.

Attention is split in two: prompt tokens attend only to the prompt, answer tokens attend to the
prompt and the whole answer (bidirectional). So the prompt's keys and values never depend on the
answer, and a prompt cache (`encode_prompt`) is exact, not an approximation.

A copy (pointer) head over the prompt tokens mixes a copy distribution into the vocabulary
distribution at answer positions: values (hours, prices, rooms) are copied from the facts rather
than memorised. `logits` are log-probabilities of that mixture (softmax of them is the mixture).

Loading: importing this module registers the model with transformers' AutoConfig/AutoModel, so a
folder with config.json + model.safetensors + tokenizer.json loads with `AutoModel.from_pretrained`.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers import AutoConfig, AutoModel, PretrainedConfig, PreTrainedModel
from transformers.utils import ModelOutput

# The reply record's special tokens (the reply schema): `<de>|<en> <mood> <sep> text <eos>`, shared
# with the kiosk (re-exported here for the trainer and the tokenizer)
from avatar.model_contract import MOODS, SPECIAL_TOKENS  # noqa: F401
# the layers themselves, in plain torch (the kiosk loads them without transformers)
from avatar.llm.mdlm_layers import Block, MDLMLayers, PromptCache  # noqa: F401


class AvatarMDLMConfig(PretrainedConfig):
    model_type = "avatar-mdlm"

    def __init__(self, vocab_size: int = 4096, hidden_size: int = 256, num_hidden_layers: int = 5,
                 num_attention_heads: int = 4, intermediate_size: int = 768, max_answer_len: int = 48,
                 max_prompt_len: int = 192, rope_theta: float = 10000.0, copy_head: bool = True,
                 layer_norm_eps: float = 1e-5, mask_token_id: int = 4, pad_token_id: int = 0,
                 bos_token_id: int = 2, eos_token_id: int = 3, sep_token_id: int = 5, **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.intermediate_size = intermediate_size
        self.max_answer_len = max_answer_len
        self.max_prompt_len = max_prompt_len
        self.rope_theta = rope_theta
        self.copy_head = copy_head
        self.layer_norm_eps = layer_norm_eps
        self.mask_token_id = mask_token_id
        self.sep_token_id = sep_token_id
        super().__init__(pad_token_id=pad_token_id, bos_token_id=bos_token_id,
                         eos_token_id=eos_token_id, **kwargs)


@dataclass
class AvatarMDLMOutput(ModelOutput):
    logits: torch.Tensor | None = None
    loss: torch.Tensor | None = None


class AvatarMDLM(MDLMLayers, PreTrainedModel):
    config_class = AvatarMDLMConfig
    base_model_prefix = "avatar_mdlm"
    _no_split_modules = ["Block"]
    _output = AvatarMDLMOutput

    def __init__(self, config: AvatarMDLMConfig):
        super().__init__(config)
        self._build(config)
        self.post_init()


AutoConfig.register("avatar-mdlm", AvatarMDLMConfig, exist_ok=True)
AutoModel.register(AvatarMDLMConfig, AvatarMDLM, exist_ok=True)
