"""A launcher's run folder never overwrites a learner's files, and what a dead launcher left
behind (its temporary folder, its port's lock file) is cleaned at the next run; a DigitsJob
refuses settings that would train on NaN."""

import fcntl
import os
import subprocess
import sys

import pytest

from bounded import within
from test_cluster import STAND_IN, run_child
from tutorial.parallel.ps.cluster import ClusterError, run_cluster
from tutorial.parallel.ps.digits_job import DigitsJob
from tutorial.parallel.ps.ports import _lock_path, claimed_port, free_port
from tutorial.parallel.ps.rundir import PREFIX, run_directory


def test_a_folder_holding_a_learners_files_is_refused_and_left_untouched(tmp_path):
    mine = tmp_path / "results"
    mine.mkdir()
    (mine / "worker0.log").write_text("my notes")
    with within(60, "run_cluster"), pytest.raises(
            ValueError, match="run_dir .* already holds files this course did not write "
                              "\\(worker0.log\\)"):
        run_cluster(["-c", "print('step 1')"], num_workers=1, timeout=60, run_dir=mine,
                    server_argv=STAND_IN)
    assert (mine / "worker0.log").read_text() == "my notes"


def test_a_folder_of_an_earlier_run_can_be_used_again(tmp_path):
    with run_directory(tmp_path / "run") as where:
        (where / "worker0.log").write_text("step 1")
    with run_directory(tmp_path / "run") as again:
        assert again == where


def test_a_port_in_use_leaves_no_empty_folder_behind(tmp_path):
    out = run_child("""
        import json, os, socket, tempfile
        from tutorial.parallel.ps.train import train_on_cluster
        from tutorial.parallel.ps.digits_job import DigitsJob
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0)); s.listen(); port = s.getsockname()[1]
            try:
                train_on_cluster(DigitsJob(steps=1), port=port, timeout=60)
            except ClusterError as e:
                message = str(e)
        print(json.dumps({"message": message, "left": os.listdir(tempfile.gettempdir())}))
    """, tmp_path)
    assert "is already in use" in out["message"]
    assert not [name for name in out["left"] if name.startswith(PREFIX)], out["left"]


def test_the_folder_of_a_killed_launcher_is_removed_at_the_next_run(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = tmp_path / f"{PREFIX}stale"
    stale.mkdir()
    (stale / "worker0.log").write_text("step 1")
    (stale / ".launcher").write_text(dead)
    alive = tmp_path / f"{PREFIX}alive"
    alive.mkdir()
    (alive / ".launcher").write_text(str(os.getpid()))
    foreign = tmp_path / f"{PREFIX}foreign"          # no owner file: not ours to judge
    foreign.mkdir()
    run_child("""
        import json
        from tutorial.parallel.ps.rundir import run_directory
        with run_directory() as where:
            pass
        print(json.dumps({}))
    """, tmp_path)
    assert not stale.exists() and alive.exists() and foreign.exists()


def test_the_lock_file_of_a_dead_launcher_is_removed_at_the_next_claim(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    port = free_port()
    _lock_path(port).write_text("12345")            # a launcher that was killed
    held = free_port()
    with open(_lock_path(held), "w") as holder:     # a launcher that still runs
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with claimed_port():
            pass
        assert not _lock_path(port).exists() and _lock_path(held).exists()


@pytest.mark.parametrize("field, value", [
    ("learning_rate", float("nan")), ("learning_rate", float("inf")),
    ("learning_rate", -0.5), ("learning_rate", "0.5"),
    ("compression_threshold", float("nan")), ("compression_threshold", -1.0),
    ("seed", -1), ("seed", 0.5), ("hidden", (0,)), ("hidden", ("a",)), ("hidden", 64),
    ("crash_worker", -1), ("crash_after_step", -2),
])
def test_a_digits_job_refuses_settings_it_could_not_train_with(field, value):
    with pytest.raises(ValueError, match=field.split("_")[0]):
        DigitsJob(**{field: value})


def test_a_temporary_run_folder_can_be_handed_to_an_inner_launcher(tmp_path):
    with run_directory() as outer, run_directory(outer) as inner:
        assert inner == outer


def test_a_worker_whose_loss_becomes_nan_stops_with_training_diverged():
    from tutorial.finite import TrainingDiverged
    from tutorial.parallel.ps.digits_job import train
    job = DigitsJob(steps=6, batch_per_worker=8, hidden=(16,), learning_rate=1e30)
    with within(60, "train"), pytest.raises(TrainingDiverged, match="the loss became"):
        train(job, kvstore=None, rank=0, num_workers=1, log=lambda line: None)


def test_a_run_dir_that_is_a_file_is_refused_with_a_sentence(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    for where in (notes, notes / "run"):
        with pytest.raises(ValueError, match="run_dir .*notes.txt.* is a file, not a folder"):
            with run_directory(where):
                pass
    assert notes.read_text() == "mine"
