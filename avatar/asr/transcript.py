"""What the recognizer returns for one utterance."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Word:
    """One word of a pass and where it lies, in seconds from the start of the utterance's audio."""
    text: str
    start: float
    end: float
    prob: float = 1.0  # the decoder's probability of the word (its tokens' mean; 1.0 when not known)


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
    words: tuple[Word, ...] = field(default_factory=tuple)  # a pass asked for word times: its words
    # incremental recognition (avatar/asr/incremental.py): words of `text` confirmed while the
    # visitor spoke, seconds of audio the final pass encoded, why the tail pass was not used
    committed_words: int = 0
    encoded_s: float = 0.0
    fallback: str = ""
    covered_s: float = 0.0    # the trimmed window's last timestamp: where its words end (seconds)

    @property
    def kept(self) -> bool:
        return not self.dropped
