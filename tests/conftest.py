"""Shared test set-up."""
import os
import tempfile

import pytest

# The kiosk keeps the last good copy of its knowledge pack under $XDG_STATE_HOME (answer/last_good.py):
# tests keep theirs out of the home folder.
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="avatar-test-state-")


@pytest.fixture(autouse=True)
def _default_model_tables():
    """Loading a model makes its folder the one whose checks tables the checks read; each test
    starts from the default model folder, whatever an earlier test loaded."""
    from avatar.model_contract import use_model_folder

    use_model_folder(None)
    yield
    use_model_folder(None)


@pytest.fixture
def pack_from(tmp_path):
    """A knowledge pack loaded from venue.toml text written into the test's folder."""
    from avatar.answer.knowledge import load_pack

    def write(text: str):
        (tmp_path / "venue.toml").write_text(text, encoding="utf-8")
        return load_pack(tmp_path)
    return write
