"""The autoregressive twin (`avatar-ar`, issue 15) behind transformers' PreTrainedModel, for training
and `from_pretrained`; the layers are avatar/llm/ar_layers.py (the kiosk loads them without
transformers). Its config is the embedded model's, under its own model_type."""
from __future__ import annotations

from transformers import AutoConfig, AutoModel, PreTrainedModel

from avatar.llm.ar_layers import ARLayers
from avatar.llm.embedded_model import AvatarMDLMConfig, AvatarMDLMOutput


class AvatarARConfig(AvatarMDLMConfig):
    model_type = "avatar-ar"

    def __init__(self, **kwargs):  # an own __init__: transformers does not run an inherited one's settings
        AvatarMDLMConfig.__init__(self, **kwargs)


class AvatarAR(ARLayers, PreTrainedModel):
    config_class = AvatarARConfig
    base_model_prefix = "avatar_ar"
    _no_split_modules = ["Block"]
    _output = AvatarMDLMOutput

    def __init__(self, config: AvatarARConfig):
        super().__init__(config)
        self._build(config)
        self.post_init()


AutoConfig.register("avatar-ar", AvatarARConfig, exist_ok=True)
AutoModel.register(AvatarARConfig, AvatarAR, exist_ok=True)
