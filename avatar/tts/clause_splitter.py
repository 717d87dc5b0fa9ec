"""Split a reply into clauses that can be spoken one by one, German- and English-aware.

A clause ends at a sentence end, or at a comma, semicolon or colon once it is long enough to be
worth starting speech early. A period is not a sentence end after an abbreviation ("z. B.",
"Dr.", "usw.", "e.g.", "Mr."), a German ordinal ("am 3. Juni", "im 2. Stock"), or inside numbers
("10.30 Uhr", "3,50 €", "3.50"). The streaming splitter decides a break only once the text after it
is known well enough, so feeding a reply piece by piece gives exactly the clauses of the whole.
"""
from __future__ import annotations

_SENTENCE_END = ".!?…"
_SOFT_BREAK = ",;:"
_CLOSERS = "\"'»«“”‘’)]"
_OPENERS = "\"'»«“„‘(["

# Abbreviations (lower case, without the final period) after which a period never ends a sentence.
_ABBREVIATIONS = {
    "de": frozenset("""
        bzw ca nr dr prof str tel inkl exkl zzgl evtl ggf vgl min std max hr fr frl st jh jhd
        abt allg bspw geb gem mio mrd tsd ehem gegr jahrh sog u.a z.b d.h u.u o.ä s.o s.u v.a z.t
        i.d.r u.v.m z.zt
    """.split()),
    "en": frozenset("""
        mr mrs ms dr prof st jr sr vs approx dept ave rd mt ft est e.g i.e cf incl fig jan feb mar apr
        jun jul aug sep sept oct nov dec mon tue tues wed thu thurs fri sat sun
    """.split()),
}
# English abbreviations that often end a sentence: a capitalised next word means a new sentence.
_EN_CAN_END = frozenset("etc a.m p.m".split())
# German ones that often end a sentence: a following sentence starter ("Das", "Wir") means a new one.
_DE_CAN_END = frozenset("usw etc".split())
# German weekday abbreviations, case-sensitive ("So." is Sunday, "so." ends a sentence).
_DE_WEEKDAYS = frozenset("Mo Di Mi Do Fr Sa So".split())
_DE_MONTHS = frozenset("""
    januar jänner februar märz april mai juni juli august september oktober november dezember
    jan feb mär apr jun jul aug sep sept okt nov dez
""".split())
# Words that start a German sentence; after "18." any other capitalised word is a noun ("2. Stock").
_DE_STARTERS = frozenset("""
    Der Die Das Den Dem Des Ein Eine Einen Einem Wir Sie Es Er Ich Du Ihr Man Bitte Dann Danach Dort
    Hier Heute Morgen Am Im In Um Ab Bis Für Mit Auch Aber Und Oder Jeden Jede Jeder Alle Unsere Unser
    Ihre Zum Zur Vom Von Bei Nach Seit Wenn Falls Leider Gerne Gern Außerdem Zudem Dazu Danke Vielen
    Herzlich Also Ja Nein Noch So Sonst Tickets Karten Kinder Eintritt Führungen Dieser Diese Dieses
    Ca Etwa Rund Über Unter Mehr Viele
""".split())


class ClauseSplitter:
    """Incremental splitter: `feed(piece)` returns the clauses completed so far, `flush()` the rest."""

    def __init__(self, lang: str, min_clause_chars: int = 40) -> None:
        self.lang = "de" if lang == "de" else "en"
        self.min_clause_chars = min_clause_chars
        self._buf = ""
        self._pos = 0  # everything in the buffer before this index holds no break

    def feed(self, piece: str) -> list[str]:
        self._buf += piece
        return self._scan(final=False)

    def flush(self) -> list[str]:
        out = self._scan(final=True)
        rest = " ".join(self._buf.split())
        if rest:
            out.append(rest)
        self._buf, self._pos = "", 0
        return out

    def _scan(self, final: bool) -> list[str]:
        out: list[str] = []
        buf, i = self._buf, self._pos
        while i < len(buf):
            c = buf[i]
            if c.isspace() and i >= _MAX_CLAUSE_CHARS and buf[:i].strip():
                # A run-on text without punctuation still starts speaking after a bounded wait.
                out.append(" ".join(buf[:i].split()))
                buf, i = buf[i:], 0
                continue
            if c not in _SENTENCE_END and c not in _SOFT_BREAK:
                i += 1
                continue
            decision = self._decide(buf, i, final)
            if decision is None:  # the text after this mark is not known yet
                break
            is_break, end = decision
            if is_break:
                clause = " ".join(buf[:end].split())
                if clause:
                    out.append(clause)
                buf, i = buf[end:], 0
            else:
                i = max(end, i + 1)
        self._buf, self._pos = buf, i
        return out

    def _worth_a_pause(self, buf: str, j: int, final: bool) -> tuple[bool, int] | None:
        """Break at a comma before the segment starting at j? Not inside a list ("Kaffee, Kuchen und
        Torte") and not before a short sentence ending ("..., auch kontaktlos.")."""
        n = len(buf)
        k = j
        while k < n:
            c = buf[k]
            if c in _SENTENCE_END + _SOFT_BREAK and (k + 1 < n and buf[k + 1].isspace() or k + 1 == n and final):
                break
            if k - j >= _LONG_SEGMENT_CHARS:
                return True, j
            k += 1
        else:
            if not final:
                return None
        segment = buf[j:k].strip()
        if " " not in segment:  # one word between commas: a list
            return False, j
        ends_sentence = k == n or buf[k] in _SENTENCE_END
        if ends_sentence and (len(segment) < _MIN_TAIL_CHARS or _LIST_WORDS & set(segment.lower().split())):
            return False, j
        return True, j

    def _decide(self, buf: str, i: int, final: bool) -> tuple[bool, int] | None:
        """(break here?, index after the mark and its closing quotes), or None when undecidable yet."""
        n = len(buf)
        soft = buf[i] in _SOFT_BREAK
        j = i + 1
        if not soft:
            while j < n and buf[j] in _SENTENCE_END:
                j += 1
        while j < n and buf[j] in _CLOSERS:
            j += 1
        if j == n:
            return (True, j) if final else None
        if not buf[j].isspace():  # "3,50", "10.30", "z.B", "18:00", "e.g": inside a token
            return False, j
        if soft:
            if len(buf[:i].strip()) < self.min_clause_chars:
                return False, j
            return self._worth_a_pause(buf, j, final)
        marks = buf[i:j]
        if any(m in marks for m in "?!…") or ".." in marks:
            return True, j
        k = j
        while k < n and buf[k].isspace():
            k += 1
        if k == n:
            return (True, j) if final else None
        p = i
        while p > 0 and not buf[p - 1].isspace():
            p -= 1
        token = buf[p:i].lstrip(_OPENERS)
        m = k
        while m < n and not buf[m].isspace() and buf[m] not in _SENTENCE_END + _SOFT_BREAK:
            m += 1
        # The ordinal and "usw." rules read the whole next word.
        needs_word = self.lang == "de" and (token.isdigit() or token.lower() in _DE_CAN_END)
        if needs_word and m == n and not final:
            return None
        return is_sentence_end(token, buf[k:m], self.lang), j


_LIST_WORDS = frozenset("und oder sowie and or".split())
_MIN_TAIL_CHARS = 30  # a shorter rest of the sentence is not worth a pause of its own
_LONG_SEGMENT_CHARS = 60  # a segment this long is its own clause, whatever follows
_MAX_CLAUSE_CHARS = 200  # no clause waits for more text than this


def is_sentence_end(token: str, nxt: str, lang: str) -> bool:
    """Whether a period after `token`, followed by the word `nxt`, ends a sentence."""
    if not nxt:
        return True
    first = nxt.lstrip(_OPENERS)[:1] or nxt[:1]
    if first.islower():  # sentences start with a capital or a digit
        return False
    if not token:
        return True
    low = token.lower()
    if len(token) == 1 and token.isalpha():  # initials and "z. B."
        return False
    if "." in token:  # "e.g", "z.B", "a.m", "U.S"
        return lang == "en" and low in _EN_CAN_END
    if low in _ABBREVIATIONS[lang]:
        return False
    if lang == "de":
        if token in _DE_WEEKDAYS:
            return False
        if low in _DE_CAN_END:
            return nxt.strip(_OPENERS + _CLOSERS) in _DE_STARTERS
        if token.isdigit():  # "am 3. Juni", "im 2. Stock", but "... bis 18. Danach ..."
            word = nxt.strip(_OPENERS + _CLOSERS)
            return word.lower() not in _DE_MONTHS and word in _DE_STARTERS
        return True
    if low == "no" and first.isdigit():  # "No. 5"
        return False
    return True


def split_clauses(text: str, lang: str, min_clause_chars: int = 40) -> list[str]:
    """The clauses of a whole text (the same as feeding it to a ClauseSplitter piece by piece)."""
    splitter = ClauseSplitter(lang, min_clause_chars)
    return splitter.feed(text) + splitter.flush()


# --- the first breath -------------------------------------------------------------------------
# A slow voice (piper: ~45 ms plus ~5 ms per character here) makes the visitor wait for the whole
# first clause. A long first clause is therefore cut once more, at a phrase boundary near the
# start: before a verb, conjunction or preposition, never after an article or preposition, never
# between a number and its unit. Later clauses are synthesized while earlier ones play.
_BREATH_BEFORE = {
    "en": {**dict.fromkeys("is are was were will can could has have had does do would should may must "
                           "opens closes cost costs takes shows means".split(), 3),
           **dict.fromkeys("and but or because so which who that where when while if until unless".split(), 3),
           **dict.fromkeys("from on in at for with to by near next opposite behind through during after "
                           "before between every without about inside outside".split(), 2)},
    "de": {**dict.fromkeys("ist sind war waren wird werden kann können hat haben gibt kostet kosten "
                           "öffnet schließt zeigt liegt liegen befindet finden heißt heißen".split(), 3),
           **dict.fromkeys("und aber oder denn weil wenn dass wo während bis sobald falls".split(), 3),
           **dict.fromkeys("von ab im am in auf für mit nach bei neben gegenüber hinter über unter zum zur "
                           "um durch ohne seit vor zwischen".split(), 2)},
}
# a phrase does not end on these (articles, prepositions, a lone pronoun subject)
_NO_BREATH_AFTER = frozenset("""
    the a an this that these those our your my its their of to from at in on by with for and or but
    i you we they he she it there wir ich sie er es man du dort
    der die das den dem des ein eine einen einem einer eines unser unsere unseren unserem ihr ihre
    im am um ab bis von vom zum zur in an auf für mit bei nach und oder aber
""".split())
# a number's unit or the rest of a time stays with the number
_UNITS = frozenset("€ eur euro euros cent cents uhr % o'clock am pm a.m. p.m. minutes minuten min km m".split())


def first_breath(clause: str, lang: str, max_chars: int, min_chars: int = 8) -> tuple[str, str] | None:
    """(head, rest) of a first clause longer than `max_chars`, cut where a speaker could pause;
    None when the clause is short enough or offers no such place."""
    if max_chars <= 0 or len(clause) <= max_chars:
        return None
    words = clause.split(" ")
    table = _BREATH_BEFORE.get(lang, _BREATH_BEFORE["en"])
    best, best_key = None, None
    head_len = 0
    for i in range(1, len(words)):
        head_len += len(words[i - 1]) + (1 if i > 1 else 0)
        if head_len > max_chars:
            break
        if head_len < min_chars or len(clause) - head_len - 1 < min_chars:
            continue
        prev = words[i - 1].strip(_CLOSERS + _OPENERS).lower()
        word = words[i].strip(_CLOSERS + _OPENERS + ",;:.!?").lower()
        if words[i - 1][-1:] in _SOFT_BREAK:
            key = (4, head_len)  # a comma the splitter found too early for a clause of its own
        elif not word or prev in _NO_BREATH_AFTER or word in _UNITS:
            continue
        elif any(ch.isdigit() for ch in prev) and not any(ch.isdigit() for ch in word):
            continue  # "3 floors", "5,50 Euro": the number's noun stays with it
        else:
            key = (table.get(word, 1), head_len)
        if best_key is None or key > best_key:
            best, best_key = i, key
    if best is None or best_key[0] < 2:
        return None  # only a cut between two content words: speaking it whole sounds better
    return " ".join(words[:best]), " ".join(words[best:])
