"""Which failed Horovod rank a failure is blamed on (tutorial/parallel/hvd/launcher.py):
the one that failed of its own accord, and first a rank whose host was lost, not a rank
that died because its peer did (seen on CI: rank 0 aborted in Gloo with "terminate called
without an active exception" when rank 1's host was killed, and was named instead)."""

import signal

from tutorial.parallel.hvd.launcher import _culprit


class FakePopen:
    def __init__(self, code):
        self.returncode = code

    def poll(self):
        return self.returncode


class FakeRank:
    def __init__(self, name, code, log, host=None):
        self.name, self.popen, self._log, self.host = name, FakePopen(code), log, host
        self.role, self.log_path = "rank", f"/tmp/run/{name.replace(' ', '')}.log"

    def log(self):
        return self._log


ABORTED = "step 3 loss 2.1\nterminate called without an active exception\n"


def test_a_killed_rank_on_another_host_is_blamed_not_the_rank_that_aborted_after_it():
    here = FakeRank("rank 0", -signal.SIGABRT, ABORTED, host="10.77.0.1")
    there = FakeRank("rank 1", -signal.SIGKILL, "step 3 loss 2.1\n", host="10.77.0.2")
    assert _culprit([here, there], grace=0.0) is there


def test_an_abort_after_a_peer_died_is_aftermath_and_a_real_error_is_the_cause():
    aborted = FakeRank("rank 0", -signal.SIGABRT, ABORTED)
    crashed = FakeRank("rank 1", 1, "step 2\nValueError: the learning rate diverged\n")
    assert _culprit([aborted, crashed], grace=0.0) is crashed
    assert _culprit([aborted], grace=0.0) is aborted           # alone, it is all there is


def test_a_rank_that_crashed_on_its_own_is_the_cause_whatever_followed():
    waiting = FakeRank("rank 0", 1, "step 1\nMXNetError: Horovod has been shut down.\n")
    crashed = FakeRank("rank 1", -signal.SIGSEGV,
                       "Segmentation fault: 11\n\nterminate called without an active exception\n")
    assert _culprit([waiting, crashed], grace=0.0) is crashed


def test_the_message_names_the_segfault_not_the_abort_that_followed():
    from tutorial.parallel.ps.diagnosis import failure_message

    crashed = FakeRank("rank 0", -signal.SIGABRT,
                       "\nSegmentation fault: 11\n\nterminate called without an active exception\n")
    message = failure_message(crashed, [], "/tmp/run")
    assert message.startswith("rank 0 crashed (segmentation fault, then aborted) before "
                              "finishing its first step: Segmentation fault: 11;"), message
    assert message.endswith("run again; if it repeats, read the log."), message
