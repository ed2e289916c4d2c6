"""The local parameter-server cluster: real ps-lite processes on 127.0.0.1.

Every scenario that starts processes runs in a child Python with a subprocess timeout,
so even a launcher bug cannot hang the test run; the launcher's own timeouts are what
the tests check. Reference for dist_sync: the same job in one process with the whole
global batch (tutorial.parallel.ps.train.train_single_process).
"""

import os
import signal
import socket
import subprocess
import sys
import time

import launched
import pytest
from launched import all_gone

from tutorial.parallel.ps.cluster import ClusterError, check_sizes, run_cluster

pytestmark = pytest.mark.slow     # every test starts real processes

REPO = launched.REPO
CHILD_TIMEOUT = 100   # seconds; the launcher's own timeouts inside are much shorter
# Tests of the supervision alone run a stand-in for ps-lite's scheduler and servers (a
# process that just waits) instead of three processes importing MXNet; the dist_sync and
# crash tests below use the real thing.
STAND_IN = ["-c", "import time; time.sleep(600)"]
# cluster.py and diagnosis.py import only the standard library (and tutorial.parallel loads
# its MXNet parts lazily), so these children start fast.
LOAD_CLUSTER = "from tutorial.parallel.ps.cluster import ClusterError, run_cluster\n"


def run_child(code, tmp_dir):
    return launched.run_child(code, tmp_dir, prelude=LOAD_CLUSTER, timeout=CHILD_TIMEOUT)


@pytest.mark.parametrize("workers, servers, name", [(0, 1, "num_workers"), (2, 0, "num_servers"),
                                                    (1.5, 1, "num_workers"),
                                                    (True, 1, "num_workers")])
def test_bad_sizes_are_refused_before_anything_starts(workers, servers, name):
    with pytest.raises(ValueError, match=f"{name} must be a whole number >= 1"):
        run_cluster(["-c", "pass"], num_workers=workers, num_servers=servers)


def test_check_sizes_accepts_one_of_each():
    check_sizes(1, 1)


def test_port_in_use_is_a_clear_error():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ClusterError, match=f"port {port} on 127.0.0.1 is already in use"
                                               r".*port=None"):
            run_cluster(["-c", "pass"], port=port)


@pytest.mark.parametrize("port", [80, 70000, "9000"])
def test_bad_port_is_refused(port):
    with pytest.raises(ValueError, match="port must be a whole number from 1024 to 65535"):
        run_cluster(["-c", "pass"], port=port)


def test_a_killed_worker_stops_the_whole_cluster(tmp_path):
    out = run_child("""
        import json
        dies = ("import os, signal, time\\n"
                "if os.environ['TUTORIAL_PS_WORKER_INDEX'] == '1':\\n"
                "    print('step 3', flush=True); os.kill(os.getpid(), signal.SIGKILL)\\n"
                "time.sleep(600)")
        try:
            run_cluster(["-c", dies], num_workers=2, num_servers=1, timeout=60,
                        server_argv=["-c", "import time; time.sleep(600)"])
            print(json.dumps({"raised": False}))
        except ClusterError as e:
            print(json.dumps({"raised": True, "message": str(e), "pids": e.pids}))
    """, tmp_path)
    assert out["raised"]
    assert out["message"].startswith("worker 1 was killed by signal SIGKILL after step 3")
    assert "the other processes (scheduler, server 0, worker 0) were stopped" in out["message"]
    assert len(out["pids"]) == 4 and all_gone(out["pids"])


def test_a_cluster_that_hangs_is_stopped_at_its_timeout(tmp_path):
    out = run_child("""
        import json
        hang = "print('step 1', flush=True); import time; time.sleep(600)"
        try:
            run_cluster(["-c", hang], num_workers=1, num_servers=1, timeout=4,
                        server_argv=["-c", "import time; time.sleep(600)"])
            print(json.dumps({"raised": False}))
        except ClusterError as e:
            print(json.dumps({"raised": True, "message": str(e), "pids": e.pids}))
    """, tmp_path)
    assert out["raised"]
    assert "did not finish within timeout=4 s" in out["message"]
    assert "worker 0 (at step 1)" in out["message"]
    assert all_gone(out["pids"])


def test_a_cluster_where_no_worker_did_a_step_says_it_never_started():
    """The deck's demo under load: every process up, none past the rendezvous. The message
    tells the instructor to run again (what the browser test then does)."""
    from types import SimpleNamespace as NS
    from tutorial.parallel.ps.diagnosis import NEVER_STARTED, timeout_message

    def node(name, log):
        return NS(name=name, log=lambda: log, popen=NS(poll=lambda: None))

    silent = [node("scheduler", ""), node("server 0", ""), node("worker 0", ""),
              node("worker 1", "")]
    said = timeout_message(silent, 60, "/tmp/run")
    assert "worker 0 (no step done)" in said and NEVER_STARTED in said and "run again" in said
    one_stepped = silent[:3] + [node("worker 1", "step 1\n")]
    assert NEVER_STARTED not in timeout_message(one_stepped, 60, "/tmp/run")


def test_dist_sync_equals_one_process_with_the_combined_batch(tmp_path):
    out = run_child("""
        import json
        import numpy as np
        from tutorial.parallel.ps.digits_job import DigitsJob
        from tutorial.parallel.ps.train import (max_relative_difference, train_on_cluster,
                                                train_single_process)
        job = DigitsJob(steps=6, batch_per_worker=16, hidden=(32,))
        runs = train_on_cluster(job, "dist_sync", num_workers=2, num_servers=2, timeout=80)
        ref = train_single_process(job, num_workers=2)
        import os, tempfile
        print(json.dumps({
            "left": [n for n in os.listdir(tempfile.gettempdir()) if n.startswith("ps_")],
            "ranks": [r.rank for r in runs],
            "vs_reference": max_relative_difference(runs[0].params, ref["params"]),
            "between_workers": max_relative_difference(runs[1].params, runs[0].params),
            "mean_losses": np.mean([r.losses for r in runs], axis=0).tolist(),
            "ref_losses": ref["losses"],
            "moved": max_relative_difference(runs[0].params,
                                             train_single_process(
                                                 DigitsJob(steps=1, batch_per_worker=16,
                                                           hidden=(32,), learning_rate=0.0),
                                                 num_workers=2)["params"])}))
    """, tmp_path)
    assert out["ranks"] == [0, 1]
    assert out["left"] == []                      # its run folder was removed after reading
    assert out["between_workers"] == 0.0          # both pulled the same weights
    assert out["vs_reference"] < 1e-5
    assert out["moved"] > 1e-2                     # training really changed the weights
    assert out["mean_losses"] == pytest.approx(out["ref_losses"], rel=1e-5)


def test_a_crashing_training_worker_is_reported_with_its_step(tmp_path):
    out = run_child("""
        import json
        from tutorial.parallel.ps.cluster import ClusterError
        from tutorial.parallel.ps.digits_job import DigitsJob
        from tutorial.parallel.ps.train import train_on_cluster
        job = DigitsJob(steps=50, batch_per_worker=8, hidden=(16,), crash_worker=1,
                        crash_after_step=2)
        try:
            train_on_cluster(job, "dist_sync", num_workers=2, timeout=80)
            print(json.dumps({"raised": False}))
        except ClusterError as e:
            print(json.dumps({"raised": True, "message": str(e), "pids": e.pids}))
    """, tmp_path)
    assert out["raised"]
    assert out["message"].startswith("worker 1 exited with code 1 after step 2: RuntimeError: "
                                     "deliberate crash of worker 1 after step 2")
    assert all_gone(out["pids"])


HANGING_WORKER = ("import os, pathlib, time\n"
                  "out = pathlib.Path(os.environ['TUTORIAL_PS_OUT_DIR'])\n"
                  "(out / f'pid{os.environ[\"TUTORIAL_PS_WORKER_INDEX\"]}').write_text("
                  "str(os.getpid()))\n"
                  "time.sleep(600)")


def start_launcher_with_hanging_workers(run_dir):
    code = (LOAD_CLUSTER +
            f"run_cluster(['-c', {HANGING_WORKER!r}], num_workers=2, timeout=300, "
            f"run_dir={str(run_dir)!r}, server_argv={STAND_IN!r})")
    launcher = subprocess.Popen([sys.executable, "-c", code], cwd=REPO,
                                env=dict(os.environ, PYTHONPATH=str(REPO)),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pid_files = [run_dir / "pid0", run_dir / "pid1"]
    deadline = time.monotonic() + CHILD_TIMEOUT
    while not all(f.is_file() and f.read_text() for f in pid_files):
        if time.monotonic() > deadline or launcher.poll() is not None:
            launcher.kill()
            pytest.fail(f"the workers never started: {launcher.stderr.read()[-2000:]!r}")
        time.sleep(0.1)
    return launcher, [int(f.read_text()) for f in pid_files]


def wait_until_gone(pids, seconds=30):
    deadline = time.monotonic() + seconds
    while not all_gone(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return all_gone(pids)


@pytest.mark.parametrize("how", ["interrupt", "kill"])
def test_workers_die_when_the_launcher_is_interrupted_or_killed(tmp_path, how):
    """Interrupting a notebook cell (SIGINT) or killing its kernel must not leave processes."""
    launcher, pids = start_launcher_with_hanging_workers(tmp_path)
    launcher.send_signal(signal.SIGINT if how == "interrupt" else signal.SIGKILL)
    try:
        launcher.wait(timeout=CHILD_TIMEOUT)
    finally:
        launcher.kill()
    assert wait_until_gone(pids), f"worker processes {pids} outlived the launcher"


def test_worker_argv_must_be_a_list_of_strings():
    with pytest.raises(ValueError, match="worker_argv must be a list of strings"):
        run_cluster("-m tutorial.parallel.ps.worker", num_workers=1)


def test_on_poll_sees_each_workers_last_step(tmp_path):
    """The progress line of train_on_cluster reads the steps the workers printed."""
    out = run_child("""
        import json
        counts = ("import os, time\\n"
                  "for step in range(1, 4):\\n"
                  "    print(f'step {step} loss 0.5', flush=True); time.sleep(0.3)\\n")
        seen = []
        run_cluster(["-c", counts], num_workers=2, num_servers=1, timeout=60, poll=0.05,
                    server_argv=["-c", "import time; time.sleep(600)"], on_poll=seen.append)
        print(json.dumps({"seen": seen}))
    """, tmp_path)
    seen = out["seen"]
    assert all(len(steps) == 2 and all(0 <= s <= 3 for s in steps) for steps in seen)
    assert [0, 0] in seen or min(map(sum, seen)) < 6        # watched while they ran
    assert any(sum(steps) >= 4 for steps in seen)             # and saw them get far


def test_on_poll_must_be_callable():
    with pytest.raises(TypeError, match="on_poll must be a function"):
        run_cluster(["-c", "pass"], on_poll="yes")
