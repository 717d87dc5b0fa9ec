"""The retrieval answerer: says the knowledge-pack fact that fits the question best, or declines.

It is the safe fallback of the diffusion answerer: it never says anything the venue did not write
itself. Greetings, thanks and goodbyes get a short reply of their own; a question the pack cannot
answer well gets an honest "I don't know" that points to the staff, in the visitor's language.
"""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from avatar.answer.asked import asked_kind, asked_value, holds_duration, holds_kind, holds_value
from avatar.answer.base import Answer, CheckReport, DecodeStats, HistoryTurn
from avatar.answer.knowledge import KnowledgePack
from avatar.answer.retrieval import Match, retriever_for
from avatar.answer.retrieval.words import _CALENDAR, _TODAY_WORDS, source_fact
from avatar.answer.text import detect_language, words
from avatar.cancel import NEVER, CancelToken
from avatar.stage_names import RETRIEVAL
from avatar.trace import TRACER, Tracer, now

# Small talk: (kind, German trigger words, English trigger words). Checked on the whole question.
_SMALLTALK = (
    ("thanks", r"danke|dankeschön|vielen dank|merci", r"thanks|thank you|cheers"),
    ("goodbye", r"tschüss|tschüs|auf wiedersehen|wiedersehen|ciao|bis bald|schönen tag noch",
     r"bye|goodbye|good bye|see you|have a nice day"),
    ("greeting", r"hallo|guten tag|guten morgen|guten abend|servus|moin|grüß gott|hi|hey",
     r"hello|hi|hey|good morning|good afternoon|good evening"),
    ("how_are_you", r"wie geht es dir|wie geht es ihnen|wie geht s|wie gehts",
     r"how are you|how s it going|how are you doing"),
    ("who_are_you", r"wer bist du|wer sind sie|was bist du|bist du ein roboter",
     r"who are you|what are you|are you a robot"),
    ("clock", r"wie spät ist es|wie viel uhr ist es|wieviel uhr ist es|welches datum|welcher tag ist heute|"
              r"welchen tag haben wir|den wievielten haben wir",
     r"what time is it|what s the time|what is the time|what s the date|what is the date|what day is it|"
     r"what day is today|what s today s date"),
)
_REPLIES = {
    "de": {
        "greeting": "Hallo und herzlich willkommen! Was möchten Sie wissen?",
        "thanks": "Gern geschehen!",
        "goodbye": "Auf Wiedersehen und einen schönen Tag!",
        "how_are_you": "Danke, mir geht es gut! Wie kann ich Ihnen helfen?",
        "who_are_you": "Ich bin der digitale Auskunftsassistent von {venue}. Fragen Sie mich zum Beispiel nach Öffnungszeiten, Preisen oder Wegen.",
        "decline": "Das weiß ich leider nicht. Bitte fragen Sie unser Personal {help}.",
    },
    "en": {
        "greeting": "Hello and welcome! What would you like to know?",
        "thanks": "You're welcome!",
        "goodbye": "Goodbye, and have a nice day!",
        "how_are_you": "I'm fine, thank you! How can I help you?",
        "who_are_you": "I'm the digital information assistant of {venue}. Ask me about opening hours, prices or directions, for example.",
        "decline": "Sorry, I don't know that. Please ask our staff {help}.",
    },
}
_DEFAULT_HELP = {"de": "an der Information", "en": "at the information desk"}
_MOODS = {"clock": ("neutral", ""), "greeting": ("happy", "wave"), "goodbye": ("happy", "wave"), "thanks": ("happy", "nod"),
          "how_are_you": ("happy", ""), "who_are_you": ("neutral", ""), "decline": ("sorry", "shrug")}
# Small talk wins only when the question is mostly small talk ("hallo wo ist das café" is a question).
_SMALLTALK_MAX_OTHER_WORDS = 2
_FOLLOWUP_MAX_WORDS = 5
_FOLLOWUP_STARTS = frozenset(["und", "and", "oder", "or", "auch", "also", "what about", "how about",
                              "und wie", "und was", "wie ist es", "und wann", "und wo"])


def _pattern(alternatives: str) -> re.Pattern:
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


_SMALLTALK_RE = [(kind, _pattern(de), _pattern(en)) for kind, de, en in _SMALLTALK]
_MIN_COVERAGE = 0.5  # share of the question's words the pack must know for a merely clear score
_SURE_FACTOR = 2.0  # a score this many times min_score needs no coverage
# Words and meaning pick the same fact, meaning clearly (this many standard deviations above the pack): a
# question in the visitor's own words ("I need to print something") may then share fewer words with it and
# score down to this share of min_score (the specific-word and "is there" gates still apply).
MEANING_SURE_Z = 2.0
_MEANING_SCORE_SHARE = 0.75
_WEEKDAYS = {"de": ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
             "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")}
_MONTHS = {"de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
                  "November", "Dezember"),
           "en": ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                  "October", "November", "December")}


class RetrievalAnswerer:
    """Answerer over a knowledge pack: the best BM25 fact, small talk, or a polite decline."""

    def __init__(self, pack: KnowledgePack, cfg, tracer: Tracer = TRACER) -> None:
        self.cfg = cfg
        self.pack = pack
        self.retriever = retriever_for(pack, cfg)
        self.top_k = int(cfg.answer.top_k)
        self.min_score = float(cfg.answer.min_score)
        self.languages = tuple(cfg.general.languages)
        self.tracer = tracer

    def warmup(self) -> None:
        self.retriever.prepare(self.languages, background=True)
        for lang in self.languages:
            self.retriever.retrieve("warmup", lang, 1)

    def use_pack(self, pack: KnowledgePack) -> None:
        """Answer from `pack` from now on (the operator edited the venue's file); between turns."""
        retriever = retriever_for(pack, self.cfg)
        retriever.prepare(self.languages, background=True)
        self.pack, self.retriever = pack, retriever

    def usual_replies(self, lang: str) -> list[str]:
        """What this answerer says word for word, in `lang`: the venue's facts (today's opening hours
        included) and its fixed lines (small talk, the decline), for the voice to prepare ahead
        (tts.prefill). The clock's reply changes by the minute and is not among them."""
        if lang not in _REPLIES:
            return []
        fixed = [template.format(venue=self.pack.display_name(lang),
                                 help=self.pack.help.get(lang, _DEFAULT_HELP[lang]))
                 for template in _REPLIES[lang].values()]
        return [f.text for f in self.pack.facts(lang)] + fixed

    def answer(self, question: str, lang: str, history: list[HistoryTurn] = (),
               cancel: CancelToken = NEVER, turn: int | None = None) -> Answer:
        t0 = now()
        if lang not in ("de", "en"):
            lang = detect_language(question, self.languages[0], self.languages)
        kind = smalltalk_kind(question)
        if kind:
            return self._reply(kind, lang, t0, checks=CheckReport(smalltalk=kind))
        with self.tracer.span(RETRIEVAL, turn=turn, track="answer") as info:
            match = self.retriever.match(question, lang, self.top_k)
            followup = False
            if history and (not self._confident(match) or _is_elliptic(question)):
                # "und für Kinder?": a short follow-up is read together with the previous question.
                previous = history[-1].question
                more = self.retriever.match(f"{previous} {question}", lang, self.top_k, focus_from=question)
                if self._confident(more) and more.facts[0].score >= _best(match):
                    match, followup = more, True
            kept = self.same_subject(question, lang, history)
            if kept is not None:
                match, followup = kept, True
            facts = match.facts
            info.update(facts=[f.id for f in facts], best=_best(match), coverage=round(match.coverage, 2))
        cancel.raise_if_cancelled()
        declined = not self._confident(match)
        # the venue's hours also replace a fact about something else ("bis wann habt ihr am Samstag auf":
        # not the Saturday disco night's start)
        venue_hours = self.venue_hours(question, lang, facts) \
            if declined or (facts and facts[0].topic != "hours" and not followup) else None
        if venue_hours is not None:  # "wann macht ihr mittwochs auf": the venue's own hours
            facts, declined = [venue_hours] + [f for f in facts if f.id != venue_hours.id][:self.top_k - 1], False
        venue_place = self.venue_place(question, lang, facts) if not followup else None
        if venue_place is not None:  # "wo genau seid ihr?": the venue's own address
            facts, declined = [venue_place] + [f for f in facts if f.id != venue_place.id][:self.top_k - 1], False
        checks = CheckReport(retrieval={"best": _best(match), "min_score": self.min_score,
                                        "coverage": round(match.coverage, 2), "fact_coverage": match.fact_coverage,
                                        "unmatched": list(match.unmatched), "followup": followup, "declined": declined,
                                        "venue_hours": venue_hours is not None, "venue_place": venue_place is not None})
        if declined:
            return self._reply("decline", lang, t0, facts=facts, checks=checks)
        mood, gesture = "neutral", "point" if facts[0].topic in ("rooms", "directions") else ""
        return Answer(reply=facts[0].text, lang=lang, facts=facts, mood=mood, gesture=gesture, checks=checks,
                      decode=_decode_info(t0), source="retrieval")

    def venue_hours(self, question: str, lang: str, found=()):
        """"Wann macht ihr mittwochs auf?", "bis wann hat der Zoo im Winter auf?": an opening question
        that names nothing but the venue and a time of the week or year asks for the venue's own hours.
        Its words score low (they are the venue's name, cue words and days), so it would be declined:
        the first of the retrieved facts (else of the pack) about hours that holds a time answers it.
        None for any other question ("hat der Zahnarzt am Samstag auf" names the dentist)."""
        if asked_value(question) != "hours" or self.retriever.names_subject(question, lang, _OPENING_FILLER):
            return None
        today = bool(set(words(question)) & _TODAY_WORDS)
        usable = lambda f: (f.topic == "hours" and holds_value(f.text, "hours")
                            and (f.id != "hours-today" or today) and f.id != "hours-special")
        return self._first_fact(found, lang, usable)

    def venue_place(self, question: str, lang: str, found=()):
        """"Wo genau seid ihr?", "Wo finde ich das Stadtarchiv?", "where exactly is the aquarium": a
        where-question that names nothing but the venue asks for the venue's own address. Its words are
        the venue's name and cue words, so they score low (declined) or find any fact with "where" in it:
        the first of the retrieved facts (else of the pack) that holds a street address answers it. None
        for any other question ("where is the café" names the café)."""
        ws = set(words(question))
        if not ws & _PLACE_ASKED or ws & _NOT_PLACE or self.retriever.names_subject(question, lang, _PLACE_FILLER):
            return None
        return self._first_fact(found, lang, lambda f: bool(_ADDRESS.search(f.text)))

    def _first_fact(self, found, lang: str, usable):
        """The first retrieved fact that `usable` accepts, else the first of the pack's; None when none is."""
        return next((f for f in found if usable(f)), None) or next((f for f in self.pack.facts(lang) if usable(f)), None)

    def same_subject(self, question: str, lang: str, history) -> Match | None:
        """"Is it open on Mondays?" after the café, "und wie lange sind die gültig?" after the vouchers: a
        short follow-up that points back (a pronoun, "and ...") asks about what the last reply was about.
        The fact that reply came from answers when it holds the kind of value asked and every specific
        word of the question; None: the question is read as it stands."""
        if not history or not _points_back(question):
            return None
        previous = source_of(history[-1].reply, lang, self.pack.facts(lang))
        if previous is None:
            return None
        kind = asked_kind(question, lang)
        if kind == "other" and set(words(question)) & _CALENDAR:
            kind = "time"  # "and on Saturday?"
        value = asked_value(question)
        if kind not in ("time", "price") and not value:
            return None  # "und wo ist der Saal": a new thing, not more about the last one
        held = holds_kind(previous.text, kind) or (kind == "time" and holds_duration(previous.text))
        if not held or (value and not holds_value(previous.text, value)):
            return None
        own = self.retriever.match(f"{previous.text} {question}", lang, self.top_k)
        if not own.facts or own.facts[0].id != previous.id or own.unmatched:
            return None
        return replace(own, facts=[replace(previous, score=own.facts[0].score)] + own.facts[1:])

    def _confident(self, match: Match) -> bool:
        """Good enough to say: a clear score, and a weak one only when the pack knows most of the
        question's words ("is the front door locked" shares only "front" with the parking fact)."""
        best = _best(match)
        if not match.answers():
            return False
        if best >= self.min_score and (match.coverage >= _MIN_COVERAGE or best >= _SURE_FACTOR * self.min_score):
            return True
        return match.meaning_z >= MEANING_SURE_Z and best >= _MEANING_SCORE_SHARE * self.min_score

    def _reply(self, kind: str, lang: str, t0: float, facts=(), checks=None) -> Answer:
        if kind == "clock":
            return Answer(reply=_clock_reply(lang), lang=lang, mood="neutral", checks=checks or CheckReport(),
                          decode=_decode_info(t0), source="retrieval")
        text = _REPLIES[lang][kind].format(venue=self.pack.display_name(lang),
                                           help=self.pack.help.get(lang, _DEFAULT_HELP[lang]))
        mood, gesture = _MOODS.get(kind, ("neutral", ""))
        return Answer(reply=text, lang=lang, facts=list(facts), mood=mood, gesture=gesture,
                      checks=checks or CheckReport(), decode=_decode_info(t0), source="retrieval")


def smalltalk_kind(question: str) -> str:
    """'greeting', 'thanks', 'goodbye', 'how_are_you', 'who_are_you', 'clock' or '' for a real question."""
    text = " ".join(words(question))
    for kind, de, en in _SMALLTALK_RE:
        for pattern in (de, en):
            match = pattern.search(text)
            if match:
                rest = len(words(pattern.sub(" ", text)))
                if rest <= _SMALLTALK_MAX_OTHER_WORDS or kind in ("how_are_you", "who_are_you", "clock"):
                    return kind
    return ""


# words of an opening question that name no subject ("wann macht ihr auf", "open during the year")
_OPENING_FILLER = ("macht", "machen", "machst", "during", "year", "years", "jahr", "jahres", "im", "the", "of",
                   "late", "spät", "lange", "long", "früh", "early")
# A where-question about the venue itself, and the words it may hold besides the venue's name.
_PLACE_ASKED = frozenset("wo where adresse anschrift address located location".split())
_NOT_PLACE = frozenset("wann when kostet cost much lange long".split())  # "wo und wann", "where and how much"
_PLACE_FILLER = ("genau", "exactly", "finde", "finden", "find", "seid", "ihr", "euch", "befindet", "befinden",
                 "liegt", "liegen", "located", "situated", "location", "adresse", "anschrift", "address",
                 "eure", "euer", "ihre", "your", "you", "you're", "are", "sind", "hier", "here", "the", "of")
# A street address: a street name and its number ("Ziegeleiweg 12", "Am Alten Zeughaus 4", "Kapitän-Harms-Kai 3",
# "12 Harbour Road"), or a German postcode before a place name ("21339 Lindholm").
_ADDRESS = re.compile(
    r"[A-ZÄÖÜ][\wäöüß.-]*(?i:str\.|straße|strasse|weg|gasse|allee|platz|ring|damm|kai|ufer|markt|chaussee)\s+\d+[a-z]?\b"
    r"|\b\d{5}\s+[A-ZÄÖÜ][a-zäöüß]+"
    r"|\b\d+\s+(?:[A-Z][a-z]+\s+)+(?i:street|road|lane|avenue|square|quay)\b"
    r"|\b(?:Am|An der|An den|Auf dem|Zum|Zur)\s+(?:[A-ZÄÖÜ][\wäöüß-]+\s+){1,3}\d+[a-z]?\b")
# Words that stand for the last reply's subject ("is it open", "wie lange sind die gültig", "can I book one");
# "die" and "das" are articles too, so the follow-up must also hold every specific word it asks about.
_POINTERS = frozenset("it its it's them they one ones es dafür davon damit dazu dort die das".split())
_POINT_BACK_MAX_WORDS = 8


def _points_back(question: str) -> bool:
    """A short question that refers to the last reply: it starts like a follow-up ("und am Samstag?") or
    names its subject by a pronoun ("is it open on Mondays")."""
    tokens = words(question)
    if not tokens or len(tokens) > _POINT_BACK_MAX_WORDS:
        return False
    return _is_elliptic(question) or any(t in _POINTERS for t in tokens)


def source_of(reply: str, lang: str, facts) -> object:
    """The pack fact a reply said: the one it quotes, else the one sharing most of its content words (at
    least two); None when none does."""
    quoted = next((f for f in facts if f.text.strip() == reply.strip()), None)
    return quoted if quoted is not None else source_fact(reply, lang, facts)


def _is_elliptic(question: str) -> bool:
    """'und für Kinder?', 'and on Sunday?': a short question that leans on the one before."""
    tokens = words(question)
    return 0 < len(tokens) <= _FOLLOWUP_MAX_WORDS and (
        tokens[0] in _FOLLOWUP_STARTS or " ".join(tokens[:2]) in _FOLLOWUP_STARTS)


def _best(match: Match) -> float:
    return match.facts[0].score if match.facts else 0.0


def _clock_reply(lang: str, when: datetime | None = None) -> str:
    """The time and date from the kiosk's clock (the one thing it knows without the pack)."""
    when = when or datetime.now()
    day = _WEEKDAYS[lang][when.weekday()]
    if lang == "de":
        return f"Es ist {when:%H:%M} Uhr, heute ist {day}, der {when.day}. {_MONTHS['de'][when.month - 1]}."
    return f"It is {when:%H:%M}, and today is {day}, {when.day} {_MONTHS['en'][when.month - 1]}."


def _decode_info(t0: float) -> DecodeStats:
    # No language model ran: no steps or tokens, only the time the answer took.
    return DecodeStats(ms=round((now() - t0) * 1000, 3))
