"""What the recognizer returns for one utterance."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Transcript:
    text: str                 # "" when dropped
    lang: str                 # "de" | "en"
    lang_prob: float          # language probability among the kiosk's languages only
    dropped: str = ""         # why it was thrown away: hallucination | noise | low_confidence | empty; "" if kept
    ms: float = 0.0           # time spent in transcribe()
    raw_text: str = ""        # what Whisper said before filtering (for logs and benches)
    path: str = ""            # trimmed | full | partial: which decoding produced the text
    no_speech_prob: float = 0.0
    avg_logprob: float = 0.0
    prior_used: bool = False  # the previous turn's language decided (a short utterance Whisper was unsure of)
    prompt_tokens: int = 0    # venue words given to Whisper as its prompt, in tokens (0: none)

    @property
    def kept(self) -> bool:
        return not self.dropped
