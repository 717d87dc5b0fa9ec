"""The settings, one frozen dataclass per section, made once from the checked values of avatar/defaults.toml.

`avatar.config.load()` reads defaults.toml, the user's file, the environment and --set flags and checks
every value (type, range, choices); `Config` then holds each section below as one of these records, so
`cfg.vad.end_of_turn_ms` is an int the code reads as it is: no default at the point of use, no
`getattr(cfg, key, fallback)`. A field here is a key of that section in defaults.toml (the values and
their one-line comments live there), and the two must name the same keys: a key added to one and not
the other stops the program at its first load with the names of both.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, Mapping

from avatar.errors import ConfigError


class _Settings:
    """What every section record shares: made from a section's checked values, read as attributes."""
    SECTION: ClassVar[str] = ""

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> "_Settings":
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        missing, extra = sorted(names - set(values)), sorted(set(values) - names)
        if missing or extra:
            raise ConfigError(f"[{cls.SECTION}] of avatar/defaults.toml and {cls.__name__} in avatar/settings.py "
                              f"differ: {missing} only in {cls.__name__}, {extra} only in defaults.toml",
                              hint="a setting is a key in avatar/defaults.toml and a field in avatar/settings.py")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    def __getattr__(self, key: str) -> Any:  # only called for a name that is not a field
        if key.startswith("__"):
            raise AttributeError(key)
        raise ConfigError(f"unknown setting '{self.SECTION}.{key}'")


@dataclass(frozen=True)
class General(_Settings):
    """[general]: the kiosk as a whole: languages, knowledge pack, logging."""
    SECTION: ClassVar[str] = "general"
    languages: tuple[str, ...]
    lang: str
    knowledge: str
    knowledge_check_s: float
    debug: bool
    trace_dir: str
    trace_keep: int
    state_dir: str
    log_level: str
    log_max_kb: int
    log_keep: int


@dataclass(frozen=True)
class Budget(_Settings):
    """[budget]: milliseconds per stage of one turn (the HUD draws use against these)."""
    SECTION: ClassVar[str] = "budget"
    turn: int
    endpoint: int
    asr: int
    retrieval: int
    decode: int
    checks: int
    tts_first_audio: int
    output: int
    human_gap: int


@dataclass(frozen=True)
class Audio(_Settings):
    """[audio]: microphone and loudspeaker."""
    SECTION: ClassVar[str] = "audio"
    frame_ms: int
    input_device: str
    output_device: str
    output_latency_ms: float
    output_buffer_ms: float
    realtime: bool


@dataclass(frozen=True)
class Vad(_Settings):
    """[vad]: the endpointer: when speech starts, when a turn ends."""
    SECTION: ClassVar[str] = "vad"
    webrtc_mode: int
    silero_threshold: float
    speech_start_ms: int
    min_speech_ms: int
    tentative_end_ms: int
    end_of_turn_ms: int
    hesitation_end_ms: int
    complete_end_ms: int
    end_wait_rule: str
    preroll_ms: int


@dataclass(frozen=True)
class Asr(_Settings):
    """[asr]: Whisper: the final pass, partial and incremental passes, priors."""
    SECTION: ClassVar[str] = "asr"
    model: str
    compute_type: str
    threads: int
    decode_threads: int
    beam_size: int
    partial_interval_ms: int
    partial_window_ms: int
    incremental: bool
    incremental_interval_ms: int
    incremental_right_context_ms: int
    incremental_overlap_ms: int
    incremental_agree_passes: int
    incremental_first_agree_passes: int
    incremental_min_word_prob: float
    incremental_tail_min_logprob: float
    incremental_languages: tuple[str, ...]
    trim_window: bool
    encode_bucket_frames: int
    plain_decode_max_ms: int
    plain_decode_languages: tuple[str, ...]
    pad_frames: int
    venue_prompt: bool
    venue_prompt_languages: tuple[str, ...]
    prompt_max_tokens: int
    language_prior: bool
    prior_max_ms: int
    prior_below_prob: float


@dataclass(frozen=True)
class Tts(_Settings):
    """[tts]: the voices: piper, SVOX Pico and espeak-ng, streaming, prepared replies."""
    SECTION: ClassVar[str] = "tts"
    english_voice: str
    german_voice: str
    engines_de: tuple[str, ...]
    engines_en: tuple[str, ...]
    length_scale: float
    espeak_rate: int
    min_clause_chars: int
    first_breath_chars: int
    alignments: bool
    threads: int
    stream: bool
    stream_first_ms: int
    cache_graph: bool
    cache_clauses: int
    prefill: bool
    prefill_max_s: float


@dataclass(frozen=True)
class Answer(_Settings):
    """[answer]: which answerer, and how retrieval finds and ranks the facts."""
    SECTION: ClassVar[str] = "answer"
    kind: str
    top_k: int
    history_turns: int
    min_score: float
    semantic_weight: float
    semantic_threads: int


@dataclass(frozen=True)
class Llm(_Settings):
    """[llm]: the diffusion model: where it is, how it runs, how a reply is decoded."""
    SECTION: ClassVar[str] = "llm"
    model: str
    family: str
    device: str
    threads: int
    dtype: str
    backend: str
    gen_length: int
    block_length: int
    threshold: float
    steps_per_block: int
    temperature: float
    confidence: str
    prompt_cache: bool
    order: str
    repetition_guard: bool
    mood_first: bool
    max_ms: float
    min_familiarity: float
    decline_bias: float


@dataclass(frozen=True)
class Checks(_Settings):
    """[checks]: the checks of a reply, their budget, and what replaces a rejected one."""
    SECTION: ClassVar[str] = "checks"
    enabled: bool
    grounding: bool
    self_consistency: bool
    schema: bool
    lexicon: bool
    word_pairs: bool
    relevance: bool
    max_redecodes: int
    max_extra_ratio: float
    always: tuple[str, ...]
    agreement_overlap: float
    remask_consistency: bool
    consistency_needs_content: bool
    moods: tuple[str, ...]
    max_reply_chars: int
    max_reply_words: int
    fallback_min_match: float
    fallback_answer: str
    decline_follows: str
    fallback_clause: bool
    fallback_trusts_retrieval: bool
    declined_answerable: bool
    answer_coverage: float
    wrong_source: bool
    source_min_coverage: float
    snap: bool
    snap_min_ratio: float
    prior_decode_ms: float
    prior_check_ms: float


@dataclass(frozen=True)
class Pipeline(_Settings):
    """[pipeline]: the voice loop: speculation, barge-in, watchdog, loading."""
    SECTION: ClassVar[str] = "pipeline"
    speculative: bool
    streaming_tts: bool
    barge_in: bool
    barge_in_min_ms: int
    barge_in_onset_ms: float
    barge_in_onset_prob: float
    visitor_timeout_s: float
    stage_timeout_s: float
    parallel_load: bool


@dataclass(frozen=True)
class Echo(_Settings):
    """[echo]: the echo canceller and the double-talk gate."""
    SECTION: ClassVar[str] = "echo"
    enabled: bool
    delay_ms: float
    estimate_delay: bool
    reference_lead_ms: float
    noise_suppression: bool
    high_pass: bool
    auto_gain: bool
    doubletalk_db: float
    ring: bool


@dataclass(frozen=True)
class Kiosk(_Settings):
    """[kiosk]: the window, the admin PIN and the wait for the devices at boot."""
    SECTION: ClassVar[str] = "kiosk"
    admin_pin_file: str
    admin_pin_hash: str
    fullscreen: bool
    hud: bool
    device_wait_s: float


# section name -> its record: every section of avatar/defaults.toml
SECTIONS: dict[str, type[_Settings]] = {cls.SECTION: cls for cls in (General, Budget, Audio, Vad, Asr, Tts, Answer,
                                                                     Llm, Checks, Pipeline, Echo, Kiosk)}
