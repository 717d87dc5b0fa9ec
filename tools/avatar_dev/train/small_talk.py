"""Small talk for the training examples: short (question, reply) pairs from chatterbot-corpus (German and
English YAML) and chitchat-dataset (English), and the kiosk's own greetings, thanks and goodbyes.
The corpora are training-only dependencies (pyproject's `train` extra)."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

SMALL_TALK_PACKAGES = {"chatterbot-corpus": "chatterbot_corpus", "chitchat-dataset": "chitchat_dataset"}


def require_small_talk() -> None:
    """The small-talk corpora are training-only dependencies (pyproject's `train` extra): a missing one
    is an error that says how to install it, not an ImportError deep in the example stream."""
    import importlib.util

    from avatar.errors import AvatarError

    missing = [pkg for pkg, module in SMALL_TALK_PACKAGES.items() if importlib.util.find_spec(module) is None]
    if missing:
        raise AvatarError(f"training reads the small-talk corpora, and {' and '.join(missing)} "
                          f"{'is' if len(missing) == 1 else 'are'} not installed",
                          hint="install the training extra: pip install -e '.[train]' (make install does)")


_CHATTERBOT_COUNT: dict[str, int] = {}


@lru_cache(maxsize=1)
def small_talk_pairs() -> dict[str, list[tuple[str, str]]]:
    """Short (question, reply) pairs: chatterbot-corpus German/English YAML + chitchat-dataset (English)."""
    pairs: dict[str, list[tuple[str, str]]] = {"de": [], "en": []}
    data = resources.files("chatterbot_corpus") / "data"
    for lang, folder in (("de", "german"), ("en", "english")):
        for f in sorted((data / folder).iterdir()):
            if f.name.endswith(".yml"):
                pairs[lang] += yaml_pairs(f.read_text(encoding="utf-8"))
    import chitchat_dataset
    raw = json.loads((resources.files(chitchat_dataset) / "dataset.json").read_text(encoding="utf-8"))
    chat = []
    for conv in raw.values():
        msgs = [" ".join(u["text"] for u in m) for m in conv["messages"]]
        # openings are the kiosk-like part; a question answered by a whole sentence is the cleanest
        chat += [(a, b) for a, b in zip(msgs[:3], msgs[1:4]) if a.endswith("?") and b[:1].isupper()
                 and b[-1:] in ".!"]
    ok = lambda s: 1 <= len(s.split()) <= 14 and len(s) <= 90 and not re.search(r"https?:|[<>{}|\\*_#@]", s)
    keep = lambda ps: [(q.strip(), a.strip()) for q, a in ps if ok(q) and ok(a)]
    pairs = {lang: keep(ps) for lang, ps in pairs.items()}
    _CHATTERBOT_COUNT.update({lang: len(ps) for lang, ps in pairs.items()})
    pairs["en"] += keep(chat)
    return pairs


def yaml_pairs(text: str) -> list[tuple[str, str]]:
    """The first two lines of each `- - question / - answer` conversation (no YAML library needed)."""
    pairs, conv = [], []
    for line in text.splitlines():
        m = re.match(r"^- - (.*)$", line)
        if m:
            conv = [m.group(1)]
        elif (m := re.match(r"^  - (.*)$", line)) and conv:
            conv.append(m.group(1))
            if len(conv) == 2:
                pairs.append(tuple(s.strip().strip("'\"") for s in conv))
    return pairs


KIOSK_TALK = {
    "de": [(["Hallo", "Guten Tag", "Hallo zusammen", "Moin", "Servus", "Guten Morgen"], ["Hallo! Wie kann ich Ihnen helfen?", "Guten Tag! Was möchten Sie wissen?"], "happy"),
           (["Danke", "Vielen Dank", "Danke schön", "Super, danke"], ["Gern geschehen!", "Sehr gern!", "Bitte schön!"], "happy"),
           (["Tschüss", "Auf Wiedersehen", "Ciao", "Bis bald"], ["Auf Wiedersehen und einen schönen Tag!", "Tschüss, bis bald!"], "happy"),
           (["Wer bist du?", "Was bist du?", "Bist du ein Roboter?"], ["Ich bin der digitale Assistent hier. Ich beantworte gern Ihre Fragen."], "neutral"),
           (["Was kannst du?", "Wobei kannst du helfen?"], ["Ich kann Fragen zu Öffnungszeiten, Preisen und Wegen beantworten."], "neutral"),
           (["Sprichst du Englisch?"], ["Ja, ich spreche Deutsch und Englisch."], "neutral")],
    "en": [(["Hello", "Hi", "Good morning", "Hey there", "Good afternoon"], ["Hello! How can I help you?", "Hi! What would you like to know?"], "happy"),
           (["Thanks", "Thank you", "Thank you very much", "Great, thanks"], ["You're welcome!", "My pleasure!", "Glad to help!"], "happy"),
           (["Bye", "Goodbye", "See you", "Have a nice day"], ["Goodbye and have a nice day!", "Bye, see you soon!"], "happy"),
           (["Who are you?", "What are you?", "Are you a robot?"], ["I am the digital assistant here. I'm happy to answer your questions."], "neutral"),
           (["What can you do?", "How can you help me?"], ["I can answer questions about opening hours, prices and directions."], "neutral"),
           (["Do you speak German?"], ["Yes, I speak German and English."], "neutral")]}


def chatterbot_pairs(lang: str) -> list[tuple[str, str]]:
    """The chatterbot-corpus pairs of `lang` alone (they come first in small_talk_pairs())."""
    return small_talk_pairs()[lang][:_CHATTERBOT_COUNT[lang]]
