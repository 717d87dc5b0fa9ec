"""Grounding: every number, time, price, floor, room and name of a reply is backed by a retrieved fact."""
from avatar.answer.base import Fact
from avatar.answer.checks.grounding import banned_strings, check_grounding

DE = [Fact("hours", "de", "Das Museum ist täglich von 9 bis 18 Uhr geöffnet."),
      Fact("price", "de", "Der Eintritt kostet 12,50 Euro, ermäßigt 6 Euro."),
      Fact("cafe", "de", "Das Café ist im 2. Stock, neben dem Aufzug."),
      Fact("tour", "de", "Die Führung mit Anna Becker beginnt um 15 Uhr in Raum B12.")]
EN = [Fact("hours", "en", "The museum is open daily from 9 am to 6 pm."),
      Fact("price", "en", "Admission costs 12.50 euros, reduced 6 euros."),
      Fact("cafe", "en", "The café is on the second floor, next to the lift.")]


def test_supported_time_price_and_floor_pass_in_other_spellings():
    assert check_grounding("Wir haben bis 18:00 geöffnet.", "de", DE).ok
    assert check_grounding("Der Eintritt kostet 12,50 €.", "de", DE).ok
    assert check_grounding("Das Café finden Sie in der zweiten Etage.", "de", DE).ok
    assert check_grounding("We close at 18:00 and admission is €12.50.", "en", EN).ok
    assert check_grounding("The café is on the 2nd floor.", "en", EN).ok


def test_unsupported_time_is_detected():
    result = check_grounding("Wir haben bis 17 Uhr geöffnet.", "de", DE)
    assert not result.ok and result.unsupported == ["17 Uhr"]
    assert not check_grounding("We are open until 5 pm.", "en", EN).ok


def test_unsupported_price_is_detected():
    result = check_grounding("Admission costs 13.50 euros.", "en", EN)
    assert not result.ok and result.unsupported == ["13.50 euros"]
    assert not check_grounding("Der Eintritt kostet 12,50 Dollar.", "de", DE).ok  # wrong currency
    assert not check_grounding("Der Eintritt ist kostenlos.", "de", DE).ok


def test_question_does_not_back_a_number():
    result = check_grounding("Ja, bis 17 Uhr.", "de", DE, question="Haben Sie bis 17 Uhr geöffnet?")
    assert not result.ok


def test_name_rule_names_from_facts_or_question_pass_others_fail():
    assert check_grounding("Die Führung leitet Anna Becker.", "de", DE).ok
    result = check_grounding("Die Führung leitet Maria Schulz.", "de", DE)
    assert result.unsupported == ["Maria", "Schulz"]
    assert check_grounding("Ja, wir haben eine Ausstellung über Dinosaurier.", "de", DE,
                           question="Gibt es Dinosaurier?").ok
    assert check_grounding("Leider weiß ich das nicht. Bitte fragen Sie unser Personal.", "de", DE).ok


def test_wrong_floor_and_room_are_detected():
    assert not check_grounding("Das Café ist im 3. Stock.", "de", DE).ok
    assert not check_grounding("Die Führung beginnt in Raum B13.", "de", DE).ok


def test_banned_strings_name_the_wrong_value_but_spare_digits_the_facts_use():
    result = check_grounding("Wir haben bis 17:00 geöffnet.", "de", DE)
    banned = banned_strings(result, DE)
    assert "17:00" in banned and "17" in banned and "00" not in banned


def test_a_bare_hour_may_stand_for_either_half_of_the_day_but_not_for_another_hour():
    assert check_grounding("We close at 6.", "en", EN).ok
    assert not check_grounding("We close at 7.", "en", EN).ok


def test_a_house_number_does_not_back_a_time():
    facts = [Fact("a", "en", "The hotel is at Uferstraße 13."), Fact("h", "en", "On Saturday we are open from 12:00.")]
    assert not check_grounding("On Saturday we open at 13:00.", "en", facts).ok
    assert check_grounding("The hotel is at Uferstraße 13.", "en", facts).ok
