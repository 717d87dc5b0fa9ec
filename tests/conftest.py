"""Shared test set-up."""
import pytest


@pytest.fixture(autouse=True)
def _default_model_tables():
    """Loading a model makes its folder the one whose checks tables the checks read; each test
    starts from the default model folder, whatever an earlier test loaded."""
    from avatar.model_contract import use_model_folder

    use_model_folder(None)
    yield
    use_model_folder(None)
