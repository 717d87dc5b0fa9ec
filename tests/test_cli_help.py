"""What `avatar COMMAND --help` says is for the people who run the kiosk: no issue numbers of this
project's tracker ("issue 5: ..."), which mean nothing to them."""
import re

import pytest

from avatar.cli import COMMANDS, build_parser

TRACKER = re.compile(r"\bissues?\b\s*\d+|\bthe issue'?s?\b", re.IGNORECASE)


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_text_names_no_tracker_issue(command, capsys):
    argv = [command, "--help"] if command else ["--help"]
    with pytest.raises(SystemExit):
        build_parser(command).parse_args(argv)
    text = capsys.readouterr().out
    assert text.strip()
    assert not TRACKER.search(text), TRACKER.search(text).group(0)
