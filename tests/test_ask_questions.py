"""`avatar ask --questions FILE|-`: a whole list of questions, the model loaded once, JSON lines."""
import io
import json

from avatar import cli


def test_questions_from_a_file_give_one_json_object_per_line(tmp_path, capsys):
    qs = tmp_path / "q.txt"
    qs.write_text("Wo ist die Garderobe?\n# a note\n\nHow much is admission?\n", encoding="utf-8")
    assert cli.main(["--set", "answer.kind=retrieval", "ask", "--questions", str(qs), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert [x["question"] for x in lines] == ["Wo ist die Garderobe?", "How much is admission?"]
    assert "Untergeschoss" in lines[0]["reply"] and lines[1]["lang"] == "en" and "9 €" in lines[1]["reply"]


def test_questions_from_standard_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("wo ist die garderobe\n"))
    assert cli.main(["--set", "answer.kind=retrieval", "ask", "--questions", "-"]) == 0
    out = capsys.readouterr().out
    assert "Q: wo ist die garderobe" in out and "A: " in out


def test_ask_without_a_question_or_with_a_missing_file_says_what_to_do(tmp_path, capsys):
    assert cli.main(["ask"]) != 0
    assert "--questions" in capsys.readouterr().err
    assert cli.main(["ask", "--questions", str(tmp_path / "nope.txt")]) != 0
    assert "not found" in capsys.readouterr().err


def test_a_model_named_with_model_that_cannot_serve_is_an_error(tmp_path, capsys):
    assert cli.main(["ask", "Wo ist die Garderobe?", "--model", str(tmp_path / "no-such-model")]) != 0
    err = capsys.readouterr().err
    assert "model folder not found" in err and "Traceback" not in err


def test_a_visit_gives_a_follow_up_the_turns_before_it_and_a_blank_line_starts_a_new_visitor(tmp_path, capsys):
    qs = tmp_path / "visit.txt"
    qs.write_text("How much is admission?\nand for children?\n\nand for children?\n", encoding="utf-8")
    assert cli.main(["--set", "answer.kind=retrieval", "ask", "--questions", str(qs), "--visit", "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert [r["visitor"] for r in rows] == [1, 1, 2]
    first_fact = [r["facts"][0]["id"] if r["facts"] else None for r in rows]
    assert first_fact[1] == first_fact[0]  # the follow-up is read with the admission question
    assert first_fact[2] != first_fact[0]  # a new visitor's "and for children?" has no admission before it
    assert cli.main(["--set", "answer.kind=retrieval", "ask", "--questions", str(qs)]) == 0
    assert "next visitor" not in capsys.readouterr().out  # without --visit every line stands alone
    assert cli.main(["ask", "Wo ist die Garderobe?", "--visit"]) != 0
    assert "--visit needs --questions" in capsys.readouterr().err
