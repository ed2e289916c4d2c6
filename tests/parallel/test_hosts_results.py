"""A worker's result: saved where it runs, or printed for its log and unpacked back."""

import numpy as np
import pytest

from tutorial.parallel.hosts import results
from tutorial.parallel.ps.cluster import ClusterError
from tutorial.parallel.ps.train import WorkerRun


def test_a_remote_result_printed_then_unpacked_equals_a_local_one(tmp_path, capsys):
    out, params = {"rank": 1, "accuracy": 0.5}, [np.arange(6.0).reshape(2, 3), np.ones(4)]
    local, remote = tmp_path / "local", tmp_path / "remote"
    local.mkdir(), remote.mkdir()
    results.deliver(out, params, local, "rank1", env={})
    assert capsys.readouterr().out == ""
    results.deliver(out, params, remote / "unused", "rank1", env={results.ENV: "1"})
    log = "step 1\n" + capsys.readouterr().out + "done\n"
    assert results.unpack(log, remote, "rank1") == "step 1\ndone\n"
    assert (remote / "rank1.json").read_text() == (local / "rank1.json").read_text()
    for name in ("arr_0", "arr_1"):
        np.testing.assert_array_equal(np.load(remote / "rank1.npz")[name],
                                      np.load(local / "rank1.npz")[name])


def test_a_failing_worker_prints_its_traceback_and_exits_with_1(capsys):
    codes = []

    def main(argv):
        raise RuntimeError(f"lost the server, argv {argv}")

    results.run_or_exit(main, ["job"], exit=codes.append)
    assert codes == [1]
    assert "RuntimeError: lost the server, argv ['job']" in capsys.readouterr().err


def test_a_worker_that_succeeds_does_not_exit():
    codes, seen = [], []
    results.run_or_exit(seen.append, ["job"], exit=codes.append)
    assert (seen, codes) == ([["job"]], [])


def test_a_keyboard_interrupt_also_leaves_at_once(capsys):
    codes = []

    def main(argv):
        raise KeyboardInterrupt

    results.run_or_exit(main, [], exit=codes.append)
    assert codes == [1]
    assert "KeyboardInterrupt" in capsys.readouterr().err


def test_a_delivered_result_reads_back_as_a_worker_run(tmp_path):
    out = {"rank": 1, "losses": [2.0, 1.5], "accuracy": 0.75, "seconds": 3.0,
           "step_seconds": [0.1, 0.2]}
    results.deliver(out, [np.ones((2, 2))], tmp_path, "rank1", env={})
    run = WorkerRun.read(tmp_path, "rank1", 1, out, "log", "rank 1")
    assert (run.index, run.rank, run.losses, run.accuracy, run.seconds) == (1, 1, [2.0, 1.5],
                                                                            0.75, 3.0)
    np.testing.assert_array_equal(run.params[0], np.ones((2, 2)))


def test_a_worker_that_wrote_nothing_is_named_with_the_end_of_its_log(tmp_path):
    log = "\n".join(f"step {i}" for i in range(10))
    with pytest.raises(ClusterError, match=r"worker 3 exited normally but wrote no result"
                                           r"(.|\n)*step 9") as caught:
        WorkerRun.read(tmp_path, "worker3", 3, None, log, "worker 3")
    assert "step 4" not in str(caught.value)
