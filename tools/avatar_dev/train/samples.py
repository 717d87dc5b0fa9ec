"""Sample dialogues of the diffusion answerer on a knowledge pack, as Markdown (for docs/MODEL.md).

Run: `python -m avatar_dev.train.samples [--model DIR] [--knowledge DIR]`. Each dialogue is one or two
turns; the second turn of a pair sees the first as history (follow-ups like "Und am Sonntag?").
"""
from __future__ import annotations

import argparse

from avatar.answer.base import HistoryTurn

DIALOGUES = [
    [("Wann hat das Museum heute geöffnet?", "de")],
    [("When is the museum open today?", "en")],
    [("Wann habt ihr am Donnerstag offen?", "de"), ("Und am Montag?", "de")],
    [("Are you open on Saturday?", "en"), ("And on Monday?", "en")],
    [("Was kostet der Eintritt?", "de")],
    [("how much is a ticket for children", "en")],
    [("wo ist die garderobe", "de")],
    [("Where are the toilets?", "en")],
    [("Gibt es hier WLAN?", "de")],
    [("Can I bring my dog?", "en")],
    [("Darf man hier fotografieren?", "de")],
    [("Is there a guided tour?", "en")],
    [("Wie komme ich mit der Straßenbahn hierher?", "de")],
    [("Kann man hier Fahrräder leihen?", "de")],
    [("Can I change money here?", "en")],
    [("Hallo!", "de")],
    [("Hi, how are you?", "en")],
    [("Wer bist du?", "de")],
    [("Thank you very much!", "en")],
    [("Tschüss!", "de")],
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model")
    parser.add_argument("--knowledge")
    parser.add_argument("--checks", choices=["on", "off"], default="on")
    args = parser.parse_args()
    from avatar import config
    from avatar.answer import load_knowledge
    from avatar.answer.diffusion_answerer import DiffusionAnswerer
    from avatar.trace import Tracer

    sets = [f"checks.enabled={'true' if args.checks == 'on' else 'false'}"] + ([f"llm.model={args.model}"] if args.model else [])
    cfg = config.load(None, sets)
    answerer = DiffusionAnswerer(cfg, load_knowledge(cfg, args.knowledge), Tracer())
    for i, dialogue in enumerate(DIALOGUES, 1):
        history: list[HistoryTurn] = []
        for question, lang in dialogue:
            first = answerer.decode_candidate(question, lang, answerer.retrieve(question, lang, history), history)
            ans = answerer.answer(question, lang, history)
            said = "" if ans.reply == first.text else f" — said after checks ({ans.source}): \"{ans.reply}\""
            print(f"{i}. **{question}** → \"{first.text}\" [{first.mood}, {first.decode_info['ms']:.0f} ms, "
                  f"{first.decode_info['steps']} steps]{said}")
            history.append(HistoryTurn(question, ans.reply, lang))


if __name__ == "__main__":
    main()
