"""The cluster launcher's arguments, ports, run folders and process groups.

Scenarios that start processes use a stand-in for ps-lite (tests/parallel/test_cluster.py says
why) and run in a child Python with a subprocess timeout, or under ``within``, so a
regression fails instead of hanging.
"""

import os
import signal
import subprocess
import sys
import time

import pytest

from bounded import within
from test_cluster import (CHILD_TIMEOUT, LOAD_CLUSTER, REPO, STAND_IN, run_child,
                          start_launcher_with_hanging_workers, wait_until_gone)
from tutorial.parallel.ps.cluster import ClusterError, run_cluster
from tutorial.parallel.ps.ports import claimed_port, free_port


@pytest.mark.parametrize("timeout, shown", [(float("nan"), "nan"), (float("inf"), "inf"),
                                            (-5, "-5"), (0, "0"), ("60", "'60'")])
def test_a_timeout_that_is_not_a_positive_finite_number_is_refused(timeout, shown):
    with within(60, "run_cluster"), pytest.raises(ValueError, match=f"timeout={shown} is out of "
                                                                    r"range: use a .*number in "
                                                                    r"\(0.0, inf\)"):
        run_cluster(["-c", "pass"], num_workers=1, timeout=timeout, server_argv=STAND_IN)


@pytest.mark.parametrize("argv", [None, "-c pass", ["-c", 3]])
def test_worker_argv_that_is_not_a_list_of_strings_is_refused(argv):
    with pytest.raises(ValueError, match="worker_argv must be a list of strings"):
        run_cluster(argv, num_workers=1)


def test_a_port_claimed_by_a_running_cluster_is_refused_even_before_it_listens(tmp_path):
    """The race: cluster A's scheduler has not bound its port yet (here it never does)."""
    port = free_port()
    code = (LOAD_CLUSTER + "import time\n"
            f"run_cluster(['-c', 'import time; time.sleep(600)'], num_workers=1, port={port}, "
            f"timeout=300, server_argv={STAND_IN!r})")
    first = subprocess.Popen([sys.executable, "-c", code], cwd=REPO,
                             env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        deadline = time.monotonic() + CHILD_TIMEOUT
        while True:                                   # until A holds its claim
            try:
                with claimed_port(port):
                    pass
            except ClusterError:
                break
            assert time.monotonic() < deadline and first.poll() is None, "A never started"
            time.sleep(0.1)
        with within(60, "run_cluster"), pytest.raises(
                ClusterError, match=f"port {port} is claimed by another parameter-server cluster "
                                    f"of this course \\(process {first.pid}\\).*port=None"):
            run_cluster(["-c", "pass"], num_workers=1, port=port, server_argv=STAND_IN)
    finally:
        first.send_signal(signal.SIGINT)              # as a notebook's interrupt button
        try:
            first.wait(CHILD_TIMEOUT)
        finally:
            first.kill()
    with claimed_port(port):                          # A's claim ended with A
        pass


@pytest.mark.slow    # runs a real cluster
def test_a_successful_run_removes_its_temporary_folder(tmp_path):
    out = run_child("""
        import json, os, tempfile
        done = run_cluster(["-c", "print('step 1')"], num_workers=2, timeout=60,
                           server_argv=["-c", "import time; time.sleep(600)"])
        print(json.dumps({"run_dir": done.run_dir, "logs": [w.log for w in done.workers],
                          "left": os.listdir(tempfile.gettempdir())}))
    """, tmp_path)
    assert out["run_dir"] is None and out["logs"] == ["step 1\n", "step 1\n"]
    assert not [name for name in out["left"] if name.startswith("ps_cluster_")], out["left"]


def test_a_failed_run_keeps_its_folder_and_names_it(tmp_path):
    out = run_child("""
        import json
        try:
            run_cluster(["-c", "print('step 2'); raise SystemExit(3)"], num_workers=1,
                        timeout=60, server_argv=["-c", "import time; time.sleep(600)"])
        except ClusterError as e:
            print(json.dumps({"message": str(e)}))
    """, tmp_path)
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("ps_cluster_")]
    assert len(kept) == 1 and (kept[0] / "worker0.log").read_text() == "step 2\n"
    assert out["message"].startswith("worker 0 exited with code 3 after step 2")
    assert f"logs of every process are in {kept[0]}" in out["message"]


def test_an_interrupted_run_removes_its_temporary_folder(tmp_path):
    """KeyboardInterrupt names no folder, so keeping one would only leave litter."""
    code = (LOAD_CLUSTER +
            "run_cluster(['-c', 'import time; time.sleep(600)'], num_workers=1, timeout=300, "
            f"server_argv={STAND_IN!r})")
    launcher = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stderr=subprocess.PIPE,
                                env=dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmp_path)))
    try:
        deadline = time.monotonic() + CHILD_TIMEOUT
        while not list(tmp_path.glob("ps_cluster_*/worker0.log")):
            assert time.monotonic() < deadline and launcher.poll() is None, "never started"
            time.sleep(0.1)
        launcher.send_signal(signal.SIGINT)
        _, err = launcher.communicate(timeout=CHILD_TIMEOUT)
    finally:
        launcher.kill()
    assert b"KeyboardInterrupt" in err
    assert not list(tmp_path.glob("ps_cluster_*"))


@pytest.mark.slow    # runs a real cluster
def test_a_folder_the_caller_names_is_kept(tmp_path):
    done = run_cluster(["-c", "pass"], num_workers=1, timeout=60, run_dir=tmp_path / "mine",
                       server_argv=STAND_IN)
    assert done.run_dir == tmp_path / "mine" and (tmp_path / "mine" / "worker0.log").is_file()


def test_every_process_runs_in_one_group_led_by_the_scheduler(tmp_path):
    """What Popen(process_group=) gave on 3.11 only; _stop kills that group."""
    launcher, pids = start_launcher_with_hanging_workers(tmp_path)
    try:
        groups = {os.getpgid(pid) for pid in pids}
        assert len(groups) == 1 and groups != {os.getpgid(launcher.pid)}
    finally:
        launcher.send_signal(signal.SIGINT)        # lets it release its port claim
        try:
            launcher.wait(CHILD_TIMEOUT)
        finally:
            launcher.kill()
    assert wait_until_gone(pids)
