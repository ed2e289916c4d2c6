"""A job in a fresh process: its answer, or one sentence, never a hang or a traceback."""

import pytest

from tutorial import fresh_process
from tutorial.fresh_process import Failed, Stopped, last_words, run


def test_the_answer_is_the_last_json_line_and_the_job_sees_its_environment():
    script = ("import json, os, sys\nprint('{not json, ignored earlier}')\nprint('chatter')\n"
              "print(json.dumps({'arg': json.loads(sys.argv[1]), 'env': os.environ['X_JOB']}))")
    assert run("a job", script=script, args=[{"n": 3}], env={"X_JOB": "on"}) == \
        {"arg": {"n": 3}, "env": "on"}


def test_the_child_imports_the_course_whatever_its_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert run("an import", script="import json, tutorial; print(json.dumps({'ok': 1}))") == \
        {"ok": 1}


def test_a_hanging_child_is_stopped_in_one_line():
    with pytest.raises(Stopped) as caught:
        run("a sleeper", script="import time\ntime.sleep(30)", timeout=0.5, hint="wake it")
    message = str(caught.value)
    assert message == "a sleeper did not finish within timeout=0.5 s (it was stopped): wake it"
    assert isinstance(caught.value, TimeoutError) and isinstance(caught.value, RuntimeError)


@pytest.mark.parametrize("script, said", [
    ("import sys\nsys.stderr.write('Traceback\\n  File x\\nValueError: broke\\n"
     "[12:00:00] src/engine.cc: a log line\\n')\nsys.exit(3)", "(exit code 3): ValueError: broke"),
    ("import sys\nsys.stderr.write('[12:00:00] log\\nplain words\\n')\nsys.exit(2)",
     "(exit code 2): plain words"),
    ("print('no answer')", "(exit code 0): (nothing)"),
])
def test_a_failed_child_ends_in_its_last_words(script, said):
    with pytest.raises(Failed) as caught:
        run("a job", script=script)
    assert str(caught.value) == f"a job failed {said}"


def test_last_words_prefer_an_error_and_skip_mxnet_logs():
    assert last_words("a\nMXNetError: out of memory\n[01:02:03] log\n") == \
        "MXNetError: out of memory"
    assert last_words("") == "(nothing)"


@pytest.mark.parametrize("kwargs, message", [
    ({}, "exactly one of module="), ({"module": "m", "script": "s"}, "exactly one of"),
    ({"script": "pass", "timeout": 0}, "timeout=0 is out of range"),
])
def test_bad_requests_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        run("a job", **kwargs)
    assert fresh_process.ROOT.joinpath("tutorial", "__init__.py").is_file()
