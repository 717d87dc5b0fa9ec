"""Voice activity and endpointing: webrtcvad + Silero decide speech; the endpointer decides turns."""
from avatar.vad.endpointer import Endpointer

__all__ = ["Endpointer"]
