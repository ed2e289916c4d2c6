"""The Horovod launcher: real ranks on 127.0.0.1, stopped however the run ends.

Every scenario that starts ranks runs in a child Python with a subprocess timeout, so even
a launcher bug cannot hang the test run. Reference for the training job: the same job in
one process with the whole global batch (tutorial.parallel.ps.train.train_single_process),
trained by gluon.Trainer, not by Horovod.
"""

import os
import socket
import subprocess
import sys
from pathlib import Path

import launched
import pytest
from launched import all_gone

from horovod_needed import require_horovod
from tutorial.parallel.hvd.launcher import run_horovod
from tutorial.parallel.ps.diagnosis import ClusterError

REPO = launched.REPO
CHILD_TIMEOUT = 150   # seconds; the launcher's own timeouts inside are much shorter
PRELUDE = ("import json\nfrom tutorial.parallel.hvd.launcher import run_horovod\n"
           "from tutorial.parallel.ps.diagnosis import ClusterError\n")


def run_child(code, tmp_dir):
    return launched.run_child(code, tmp_dir, prelude=PRELUDE, timeout=CHILD_TIMEOUT)


CATCH = """
try:
    result = {call}
    print(json.dumps({{"raised": False, "seconds": result.seconds}}))
except ClusterError as e:
    print(json.dumps({{"raised": True, "message": str(e), "pids": e.pids}}))
"""


@pytest.mark.parametrize("kwargs, message", [
    ({"num_ranks": 0}, "num_ranks must be a whole number >= 1"),
    ({"num_ranks": 1.5}, "num_ranks must be a whole number >= 1"),
    ({"timeout": 0}, "timeout"),
    ({"port": 80}, "port must be a whole number from 1024 to 65535"),
])
def test_bad_arguments_are_refused_before_anything_starts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        run_horovod(["-c", "pass"], **kwargs)


def test_worker_argv_must_be_a_list_of_strings():
    with pytest.raises(ValueError, match="worker_argv must be a list of strings"):
        run_horovod("python train.py")


def test_a_port_in_use_is_a_clear_error():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ClusterError, match=f"port {port} on 127.0.0.1 is already in use"
                                               r".*port=None"):
            run_horovod(["-c", "pass"], port=port)


def test_without_horovod_training_stops_with_the_fix(monkeypatch):
    import horovod_needed
    from tutorial.parallel.hvd import train
    from tutorial.parallel.ps.digits_job import DigitsJob
    why = "Horovod is not usable here: `import horovod.mxnet` fails (No module named 'horovod')"
    monkeypatch.setattr(train, "horovod_problem", lambda: why + ". ... run `make horovod`")
    with pytest.raises(train.HorovodUnavailable, match="make horovod"):
        train.train_with_horovod(DigitsJob(steps=1))
    monkeypatch.setattr(horovod_needed, "_problem", lambda: why)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        horovod_needed.require_horovod()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="import horovod.mxnet"):
        horovod_needed.require_horovod()


@pytest.mark.slow
def test_ranks_that_succeed_return_their_logs_and_leave_nothing_running(tmp_path):
    require_horovod()
    out = run_child("""
        import os
        say = ("import os; "
               "print('rank', os.environ['HOROVOD_RANK'], 'of', os.environ['HOROVOD_SIZE'])")
        result = run_horovod(["-c", say], num_ranks=3, timeout=60)
        print(json.dumps({"logs": [r.log.strip() for r in result.ranks],
                          "command": result.command}))
    """, tmp_path)
    assert out["logs"] == ["rank 0 of 3", "rank 1 of 3", "rank 2 of 3"]
    assert out["command"].startswith("horovodrun --gloo -np 3 -H 127.0.0.1:3 "
                                     "--network-interface lo python -c")


@pytest.mark.slow
def test_a_crashing_rank_is_named_with_its_step_and_last_line(tmp_path):
    require_horovod()
    out = run_child("""
        from tutorial.parallel.ps.digits_job import DigitsJob
        from tutorial.parallel.hvd.train import train_with_horovod
        job = DigitsJob(steps=50, batch_per_worker=8, hidden=(16,), crash_worker=1,
                        crash_after_step=2)
        try:
            train_with_horovod(job, num_ranks=2, timeout=100)
            print(json.dumps({"raised": False}))
        except ClusterError as e:
            print(json.dumps({"raised": True, "message": str(e), "pids": e.pids}))
    """, tmp_path)
    assert out["raised"]
    assert out["message"].startswith("rank 1 exited with code 1 after step 2: RuntimeError: "
                                     "deliberate crash of rank 1 after step 2"), out["message"]
    assert "the other processes (rank 0) were stopped" in out["message"]
    assert len(out["pids"]) == 2 and all_gone(out["pids"])


@pytest.mark.slow
def test_a_killed_rank_stops_the_others(tmp_path):
    require_horovod()
    dies = ("import os, signal, time\\n"
            "if os.environ['HOROVOD_RANK'] == '1':\\n"
            "    print('step 3', flush=True); os.kill(os.getpid(), signal.SIGKILL)\\n"
            "time.sleep(600)")
    out = run_child(CATCH.format(call=f'run_horovod(["-c", "{dies}"], num_ranks=2, timeout=60)'),
                    tmp_path)
    assert out["raised"]
    assert out["message"].startswith("rank 1 was killed by signal SIGKILL after step 3")
    assert all_gone(out["pids"])


@pytest.mark.slow
def test_ranks_that_hang_are_stopped_at_the_deadline(tmp_path):
    require_horovod()
    hang = "print('step 1', flush=True); import time; time.sleep(600)"
    out = run_child(CATCH.format(call=f'run_horovod(["-c", "{hang}"], num_ranks=2, timeout=4)'),
                    tmp_path)
    assert out["raised"]
    assert "did not finish within timeout=4 s" in out["message"]
    assert "rank 0 (at step 1), rank 1 (at step 1)" in out["message"]
    assert all_gone(out["pids"])


@pytest.mark.slow
def test_two_ranks_equal_one_process_with_the_combined_batch(tmp_path):
    require_horovod()
    out = run_child("""
        import numpy as np
        from tutorial.parallel.ps.digits_job import DigitsJob
        from tutorial.parallel.hvd.train import train_with_horovod
        from tutorial.parallel.ps.train import max_relative_difference, train_single_process
        job = DigitsJob(steps=6, batch_per_worker=16, hidden=(32,))
        runs = train_with_horovod(job, num_ranks=2, timeout=100)
        ref = train_single_process(job, num_workers=2)
        start = train_single_process(DigitsJob(steps=1, batch_per_worker=16, hidden=(32,),
                                               learning_rate=0.0), num_workers=2)
        import os, tempfile
        print(json.dumps({
            "left": [n for n in os.listdir(tempfile.gettempdir()) if n.startswith("ps_")],
            "ranks": [r.rank for r in runs],
            "vs_reference": max_relative_difference(runs[0].params, ref["params"]),
            "between_ranks": max_relative_difference(runs[1].params, runs[0].params),
            "mean_losses": np.mean([r.losses for r in runs], axis=0).tolist(),
            "ref_losses": ref["losses"],
            "moved": max_relative_difference(runs[0].params, start["params"])}))
    """, tmp_path)
    assert out["ranks"] == [0, 1]
    assert out["left"] == []                     # its run folder was removed after reading
    assert out["between_ranks"] == 0.0           # rank 1 started elsewhere: the broadcast
    assert out["vs_reference"] < 1e-5
    assert out["moved"] > 1e-2                    # training really changed the weights
    assert out["mean_losses"] == pytest.approx(out["ref_losses"], rel=1e-5)


@pytest.mark.slow
def test_horovodrun_itself_trains_the_same_weights_as_the_launcher(tmp_path):
    """The launcher stands for `horovodrun --gloo`: horovodrun running the same worker is the
    independent reference for the rendezvous and the HOROVOD_* variables."""
    require_horovod()
    import numpy as np

    from tutorial.parallel.hvd.rendezvous import horovodrun_command
    from tutorial.parallel.ps.digits_job import DigitsJob
    job = DigitsJob(steps=4, batch_per_worker=8, hidden=(16,))
    argv = [sys.executable, "-m", "tutorial.parallel.hvd.worker", job.to_json()]
    horovodrun = str(Path(sys.executable).parent / "horovodrun")
    command = horovodrun_command(argv, 2).replace("horovodrun", horovodrun, 1)
    done = subprocess.run(command, shell=True, cwd=REPO, capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT, start_new_session=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO),
                                   TUTORIAL_HVD_OUT_DIR=str(tmp_path)))
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    theirs = np.load(tmp_path / "rank1.npz")
    out = run_child(f"""
        import numpy as np
        from tutorial.parallel.hvd.train import train_with_horovod
        from tutorial.parallel.ps.digits_job import DigitsJob
        runs = train_with_horovod(DigitsJob.from_json({job.to_json()!r}), num_ranks=2)
        print(json.dumps([p.tolist() for p in runs[1].params]))
    """, tmp_path)
    for ours, name in zip(out, sorted(theirs.files, key=lambda n: int(n.split("_")[1]))):
        assert np.array_equal(np.array(ours, dtype=np.float32), theirs[name])
