"""Offline bilingual kiosk avatar."""
import os as _os

# Offline by construction: these switches are read once when onnxruntime (its 1DS telemetry, with a
# persistent device id under ~/.cache) and the Hugging Face libraries load, so they are set here,
# before any stage imports them. An operator's own value wins.
for _name in ("ORT_DISABLE_TELEMETRY", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE",
              "HF_HUB_DISABLE_TELEMETRY"):
    _os.environ.setdefault(_name, "1")
del _name
