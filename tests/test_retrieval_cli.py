"""`python -m avatar.answer.retrieval`: the developers' look at what a question retrieves."""
from __future__ import annotations

from avatar.answer.retrieval.__main__ import main


def test_a_missing_pack_is_named_not_a_traceback(tmp_path, capsys):
    assert main([str(tmp_path / "nowhere"), "de", "wo ist das klo"]) == 2
    err = capsys.readouterr().err
    assert "knowledge pack not found" in err and "hint:" in err


def test_it_prints_the_facts_a_question_finds(capsys):
    assert main(["assets/venues/sample", "de", "was kostet der eintritt", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "index built" in out and "price-adult" in out.split("\n")[3]
