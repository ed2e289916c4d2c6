import pytest

from tutorial import config


@pytest.mark.parametrize("value,fast", [("1", True), ("yes", True), ("0", False), ("", False)])
def test_fast_mode_is_read_from_one_variable(value, fast):
    assert config.fast_mode({"TUTORIAL_FAST": value}) is fast
    assert config.pick(10, 1, {"TUTORIAL_FAST": value}) == (1 if fast else 10)
