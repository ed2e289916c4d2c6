"""The host-list launchers with this machine as the host: every step but ssh, without root.

127.0.0.1 is this machine's, so its processes start here (``sh -c``) under the tether,
with the placement, variables and results-through-the-log of a remote run (ps-lite and
Horovod, whose rendezvous then listens on 127.0.0.1). Runs
wherever the tests run; tests/parallel/test_hosts_namespaces.py adds real separate hosts.
"""

import pytest

from bounded import within
from horovod_needed import require_horovod
from tutorial.parallel.hvd.train import train_with_horovod
from tutorial.parallel.ps.digits_job import DigitsJob
from tutorial.parallel.ps.train import (max_relative_difference, train_on_cluster,
                                        train_single_process)

pytestmark = pytest.mark.slow     # starts a real cluster


def test_a_host_list_of_this_machine_equals_one_process():
    job = DigitsJob(steps=4, batch_per_worker=16, hidden=(32,))
    with within(90, "train_on_cluster(hosts='127.0.0.1:2')"):
        runs = train_on_cluster(job, "dist_sync", hosts="127.0.0.1:2", timeout=60)
    reference = train_single_process(job, num_workers=2)
    assert [r.rank for r in runs] == [0, 1]
    assert max_relative_difference(runs[0].params, reference["params"]) < 1e-5
    assert not any("result-base64" in r.log for r in runs)


def test_horovod_with_a_host_list_of_this_machine_equals_one_process():
    require_horovod()
    job = DigitsJob(steps=4, batch_per_worker=16, hidden=(32,))
    with within(90, "train_with_horovod(hosts='127.0.0.1:2')"):
        runs = train_with_horovod(job, hosts="127.0.0.1:2", interface="lo", timeout=60)
    reference = train_single_process(job, num_workers=2)
    assert [r.rank for r in runs] == [0, 1]
    assert max_relative_difference(runs[0].params, reference["params"]) < 1e-5
