"""The launcher over several "machines": network namespaces with their own addresses.

Three namespaces (10.77.0.1-3) joined by a bridge stand in for three machines (see
tests/netns.py); the template ``ip netns exec ...`` stands in for ssh. A ps-lite
``dist_sync`` job and a Horovod job across them must each equal one process with the
combined batch; a host that dies mid-run must be named in the error, and no process may be
left in any namespace. The Horovod launcher runs on the first "machine", as a notebook
there would (its rendezvous must be reachable from the others). Needs root and ``ip``:
skipped with the reason elsewhere, failed under CI.
"""

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from bounded import within
from horovod_needed import require_horovod
from netns import INTERFACE, Machines, skip_or_fail, unavailable
from tutorial.parallel.ps.cluster import ClusterError
from tutorial.parallel.ps.digits_job import DigitsJob
from tutorial.parallel.ps.train import (max_relative_difference, train_on_cluster,
                                        train_single_process)

pytestmark = pytest.mark.slow
ADDRESSES = ["10.77.0.1", "10.77.0.2", "10.77.0.3"]
JOB = DigitsJob(steps=4, batch_per_worker=16, hidden=(32,))
REPO = Path(__file__).resolve().parents[2]
CHILD_TIMEOUT = 120   # seconds; the launchers' own timeouts inside are shorter


@pytest.fixture(scope="module")
def machines(request):
    why = unavailable()
    if why is not None:
        skip_or_fail(f"cannot make network namespaces: {why}")
    built = Machines(ADDRESSES)
    request.addfinalizer(built.close)         # runs even when a test fails
    return built


def on(machines, **options):
    return dict(template=machines.template, interface=INTERFACE, **options)


def test_dist_sync_across_three_hosts_equals_one_process(machines):
    hosts = ",".join(f"{a}:1" for a in ADDRESSES)
    with within(90, "train_on_cluster over three namespaces"):
        runs = train_on_cluster(JOB, "dist_sync", hosts=hosts, num_servers=2, timeout=60,
                                **on(machines))
    reference = train_single_process(JOB, num_workers=3)
    assert [r.rank for r in runs] == [0, 1, 2]
    assert max_relative_difference(runs[0].params, reference["params"]) < 1e-5
    assert all(max_relative_difference(r.params, runs[0].params) == 0.0 for r in runs)
    assert not any("result-base64" in r.log for r in runs)     # taken out of the logs
    assert machines.pids() == []                                # nothing left anywhere


def test_a_dead_host_is_named_and_no_process_is_left(machines, tmp_path):
    victim = ADDRESSES[1]

    def kill_when_training(steps):
        if min(steps) >= 2:
            machines.kill(victim)                 # every process on that "machine"

    job = DigitsJob(steps=400, batch_per_worker=8, hidden=(16,))
    with within(90, "train_on_cluster with a dead host"), \
            pytest.raises(ClusterError) as error:
        train_on_cluster(job, "dist_sync", hosts=f"{ADDRESSES[0]}:1,{victim}:1", timeout=60,
                         on_poll=kill_when_training, run_dir=tmp_path, **on(machines))
    message = str(error.value)
    assert message.startswith(f"host {victim} looks down or unreachable: ")
    assert f"on {victim} was killed by signal SIGKILL" in message
    assert f"the other processes (scheduler on {ADDRESSES[0]}, " in message
    assert machines.pids() == []


def test_a_host_that_does_not_answer_is_named_before_anything_starts(machines, tmp_path):
    missing = "10.77.0.9"                         # no namespace: ip netns exec fails
    with within(60, "train_on_cluster with a missing host"), \
            pytest.raises(ClusterError, match=f"host {missing} failed .*Cannot open network "
                                              f"namespace.*Nothing was started"):
        train_on_cluster(JOB, "dist_sync", hosts=f"{ADDRESSES[0]}:1,{missing}:1", timeout=60,
                         run_dir=tmp_path, **on(machines))
    assert machines.pids() == []


def test_without_namespaces_it_skips_here_but_fails_in_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs root"):
        skip_or_fail("making network namespaces needs root")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        skip_or_fail("making network namespaces needs root")


def run_on(machines, address, code, tmp_dir):
    """Run ``code`` in a Python on the machine ``address`` (the launcher on the first host,
    as a notebook there would be); it prints one JSON line last, which we return. Its run
    folders go under ``tmp_dir`` (TMPDIR)."""
    argv = machines.argv_on(address, [sys.executable, "-c", textwrap.dedent(code)])
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=CHILD_TIMEOUT,
                          env=dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmp_dir)))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_horovod_across_two_hosts_equals_one_process(machines, tmp_path):
    require_horovod()
    out = run_on(machines, ADDRESSES[0], f"""
        import json
        from tutorial.parallel.hvd.train import train_with_horovod
        from tutorial.parallel.ps.digits_job import DigitsJob
        runs = train_with_horovod(DigitsJob.from_json({JOB.to_json()!r}),
                                  hosts="{ADDRESSES[0]}:1,{ADDRESSES[1]}:1", interface="tut0",
                                  template={machines.template!r}, timeout=60)
        print(json.dumps({{"ranks": [r.rank for r in runs],
                          "params": [[p.tolist() for p in r.params] for r in runs]}}))
    """, tmp_path)
    reference = train_single_process(JOB, num_workers=2)
    params = [[np.array(p) for p in run] for run in out["params"]]
    assert out["ranks"] == [0, 1]
    assert max_relative_difference(params[0], reference["params"]) < 1e-5
    assert max_relative_difference(params[1], params[0]) == 0.0
    assert machines.pids() == []


# Horovod 0.28.1 with MXNet 1.9.1 under Python 3.12 has crashed a rank by itself at start-up
# (SIGSEGV, then "terminate called without an active exception") in 2 of 3 CI runs of the
# whole suite, never alone here: then the host was never killed and the run tests nothing
# of what this test is about. Such a run must still name the rank that crashed; the test
# tries again, up to ATTEMPTS in all, and needs one run in which the kill came.
ATTEMPTS = 3


def _horovod_losing_a_host(machines, victim, tmp_dir):
    """A Horovod job on hosts 1 and 2 whose second host is powered off once both ranks have
    finished two steps: {"message": the launcher's error or None, "killed_at": the ranks'
    steps when the host was killed, or None if it never was}."""
    job = DigitsJob(steps=400, batch_per_worker=8, hidden=(16,))
    tmp_dir.mkdir()
    return run_on(machines, ADDRESSES[0], f"""
        import json, os, signal, subprocess
        from tutorial.parallel.hvd.train import train_with_horovod
        from tutorial.parallel.ps.digits_job import DigitsJob
        from tutorial.parallel.ps.diagnosis import ClusterError

        killed_at = []
        def kill_when_training(steps):
            if not killed_at and min(steps) >= 2:
                killed_at.append(list(steps))
                pids = subprocess.run(["ip", "netns", "pids", {machines.name_of(victim)!r}],
                                      capture_output=True, text=True).stdout.split()
                for pid in pids:
                    os.kill(int(pid), signal.SIGKILL)
        try:
            train_with_horovod(DigitsJob.from_json({job.to_json()!r}),
                               hosts="{ADDRESSES[0]}:1,{victim}:1", interface="tut0",
                               template={machines.template!r}, timeout=60,
                               on_poll=kill_when_training)
            message = None
        except ClusterError as error:
            message = str(error)
        print(json.dumps({{"message": message, "killed_at": (killed_at or [None])[0]}}))
    """, tmp_dir)


def test_a_dead_host_stops_horovod_and_is_named(machines, tmp_path):
    require_horovod()
    victim = ADDRESSES[1]
    crashed_by_itself = []
    for attempt in range(ATTEMPTS):
        out = _horovod_losing_a_host(machines, victim, tmp_path / f"attempt{attempt}")
        assert out["message"] is not None, out
        assert machines.pids() == []
        if out["killed_at"] is not None:
            break
        # no kill: a rank crashed first, and the error must say which and where
        assert out["message"].startswith(("rank 0 on", "rank 1 on")), out["message"]
        crashed_by_itself.append(out["message"])
        warnings.warn(f"attempt {attempt + 1}: a Horovod rank crashed before the host was "
                      f"killed: {out['message']}")
    assert out["killed_at"] is not None, f"no run got as far as the kill: {crashed_by_itself}"
    assert out["message"].startswith(f"host {victim} looks down or unreachable: rank 1 on "
                                     f"{victim} was killed by signal SIGKILL"), (
        out["message"], crashed_by_itself)
