"""Normalisation of the facts-bearing items: different spellings of one value compare equal."""
import pytest

from avatar.answer.checks.content import extract


def values(text, lang, kind=None):
    return {(i.kind, v) for i in extract(text, lang).items for v in i.values if kind in (None, i.kind)}


@pytest.mark.parametrize("text,lang", [
    ("Wir schließen um 18 Uhr.", "de"), ("Wir schließen um 18:00.", "de"), ("Wir schließen um 18.00 Uhr.", "de"),
    ("We close at 6 pm.", "en"), ("We close at 6 p.m. today.", "en"), ("We close at 18:00.", "en"),
    ("Wir schließen um achtzehn Uhr.", "de"), ("Wir schließen um 6 Uhr abends.", "de"),
])
def test_spellings_of_six_pm_are_one_time(text, lang):
    assert values(text, lang, "time") == {("time", "18:00")}


def test_half_past_in_german_is_thirty_minutes_before_the_hour_either_half_of_the_day():
    assert values("Die Führung beginnt um halb sieben.", "de", "time") == {("time", "06:30"), ("time", "18:30")}
    assert values("Die Führung beginnt um halb sieben abends.", "de", "time") == {("time", "18:30")}
    assert values("The tour starts at half past six pm.", "en", "time") == {("time", "18:30")}


def test_range_with_one_uhr_makes_both_ends_times():
    assert values("Geöffnet von 9 bis 18 Uhr.", "de", "time") == {("time", "09:00"), ("time", "18:00")}
    assert values("Mo–Fr 9–17:30 Uhr", "de", "time") == {("time", "09:00"), ("time", "17:30")}


@pytest.mark.parametrize("text,lang", [
    ("Das kostet 3,50 €.", "de"), ("Das kostet 3,50 Euro.", "de"), ("That is 3.50 euros.", "en"),
    ("That is €3.50.", "en"), ("Das kostet drei Euro fünfzig.", "de"), ("Das kostet 3 Euro 50.", "de"),
    ("It costs EUR 3.50.", "en"),
])
def test_spellings_of_three_fifty_are_one_price(text, lang):
    assert values(text, lang, "price") == {("price", "EUR 3.50")}


def test_currency_is_part_of_the_price():
    assert values("It costs $3.50.", "en", "price") == {("price", "USD 3.50")}
    assert values("Kinder zahlen 12,- €.", "de", "price") == {("price", "EUR 12.00")}
    assert values("Admission is free of charge.", "en", "price") == {("price", "free")}
    assert values("Der Eintritt ist frei.", "de", "price") == {("price", "free")}


@pytest.mark.parametrize("text,lang,n", [
    ("zwei", "de", 2), ("zwanzig", "de", 20), ("two", "en", 2), ("twenty", "en", 20), ("twenty-one", "en", 21),
    ("einundzwanzig", "de", 21), ("zwölf", "de", 12), ("eleven", "en", 11),
])
def test_number_words_in_both_languages(text, lang, n):
    assert values(f"Es sind {text} Plätze." if lang == "de" else f"There are {text} seats.", lang) == {("number", str(n))}


@pytest.mark.parametrize("text,lang,n", [
    # the words num2words spells (the tables are made from it), and how replies also write them
    ("null", "de", 0), ("eins", "de", 1), ("siebzehn", "de", 17), ("neunundneunzig", "de", 99), ("dreißig", "de", 30),
    ("zwo", "de", 2), ("fuenf", "de", 5), ("zwoelf", "de", 12), ("dreissig", "de", 30), ("fuenfundzwanzig", "de", 25),
    ("fünfunddreissig", "de", 35), ("einhundert", "de", 100), ("hundert", "de", 100), ("tausend", "de", 1000),
    ("zero", "en", 0), ("ninety-nine", "en", 99), ("forty two", "en", 42), ("one hundred", "en", 100),
    ("a hundred", "en", 100),
])
def test_every_spelling_of_a_number_word_is_read(text, lang, n):
    assert values(f"Es sind {text} Plätze." if lang == "de" else f"There are {text} seats.", lang) == {("number", str(n))}


@pytest.mark.parametrize("text,lang,price", [
    ("Der Eintritt kostet zwölf Euro.", "de", "EUR 12.00"), ("Der Eintritt kostet fuenfzehn Euro.", "de", "EUR 15.00"),
    ("Admission is twenty-one euros.", "en", "EUR 21.00"), ("Das kostet fünfundzwanzig Euro.", "de", "EUR 25.00"),
])
def test_german_and_english_number_words_in_replies_are_read_as_prices(text, lang, price):
    assert values(text, lang, "price") == {("price", price)}


@pytest.mark.parametrize("text,lang,floor", [
    ("Im ersten Stock.", "de", "1"), ("Im zweiten Stock.", "de", "2"), ("Im siebten Stock.", "de", "7"),
    ("Im siebenten Stock.", "de", "7"), ("Im einundzwanzigsten Stock.", "de", "21"), ("On the first floor.", "en", "1"),
    ("On the twenty-first floor.", "en", "21"),
])
def test_ordinal_words_in_both_languages(text, lang, floor):
    assert values(text, lang, "floor") == {("floor", floor)}


def test_article_one_is_not_a_number_but_one_euro_is():
    assert values("Take the one on the left.", "en") == set()
    assert values("Das ist ein Café.", "de") == set()
    assert values("It costs one euro.", "en", "price") == {("price", "EUR 1.00")}


@pytest.mark.parametrize("text,lang,floor", [
    ("Im 3. Stock.", "de", "3"), ("Im dritten Stock.", "de", "3"), ("On the third floor.", "en", "3"),
    ("On the 3rd floor.", "en", "3"), ("On level 3.", "en", "3"), ("Im 3. Obergeschoss.", "de", "3"),
    ("Im Erdgeschoss.", "de", "0"), ("On the ground floor.", "en", "0"), ("In the basement.", "en", "-1"),
    ("Im Untergeschoss.", "de", "-1"), ("On the 2nd floor.", "en", "2"),
])
def test_floors_in_both_languages(text, lang, floor):
    assert values(text, lang, "floor") == {("floor", floor)}


@pytest.mark.parametrize("text,lang", [
    ("Montags geschlossen.", "de"), ("Closed on Monday.", "en"), ("Closed on Mondays.", "en"),
    ("Geschlossen: Mo.", "de"),
])
def test_weekday_spellings_are_one_day(text, lang):
    assert values(text, lang, "weekday") == {("weekday", "mon")}


def test_weekday_ranges_expand_and_words_like_so_are_not_days():
    assert values("Mo–Fr geöffnet.", "de", "weekday") == {("weekday", d) for d in ("mon", "tue", "wed", "thu", "fri")}
    assert values("Open Saturday to Monday.", "en", "weekday") == {("weekday", d) for d in ("sat", "sun", "mon")}
    assert values("So geht das nicht. Do you know?", "de", "weekday") == set()


@pytest.mark.parametrize("text,lang", [
    ("Bis zum 3. Juni.", "de"), ("Until June 3.", "en"), ("Until June 3rd.", "en"), ("Until the 3rd of June.", "en"),
    ("Bis zum dritten Juni.", "de"), ("Bis 03.06.", "de"),
])
def test_date_spellings_are_one_date(text, lang):
    assert values(text, lang, "date") == {("date", "06-03")}


def test_percent_room_and_code():
    assert values("Studenten bekommen 20 % Rabatt.", "de") == {("percent", "20")}
    assert values("Students get twenty percent off.", "en") == {("percent", "20")}
    assert values("Das Bürgerbüro ist in Zimmer 204.", "de") == {("room", "204")}
    assert values("You will find it in hall 3, stand A12.", "en") == {("room", "3"), ("room", "A12")}


def test_name_candidates_skip_sentence_starts():
    content = extract("Die Führung leitet Anna Becker. Danach gibt es Kaffee.", "de")
    assert content.names == ("Führung", "Anna", "Becker", "Kaffee")
    assert extract("Welcome to the Lindenau Museum.", "en").names == ("Lindenau", "Museum")


def test_a_title_abbreviation_does_not_end_the_sentence():
    assert "Weber" in extract("Die Führung leitet Dr. Weber.", "de").names
    assert extract("We open at 9 am. Anna will help.", "en").names == ()


def test_addresses_and_durations_are_items_of_their_own():
    assert values("Die Messe liegt in der Goethestraße 7.", "de") == {("address", "goethestraße 7")}
    assert values("Bücher kann man vier Wochen ausleihen.", "de") == {("duration", "4 week")}
    assert values("Books can be borrowed for 4 weeks.", "en") == {("duration", "4 week")}
    assert values("Am Montag 10 Besucher.", "de") == {("weekday", "mon"), ("number", "10")}
