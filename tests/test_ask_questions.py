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
