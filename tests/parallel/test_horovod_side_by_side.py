"""The side-by-side table: its byte counts against the course's ring schedule, and one
real run of the three engines (each must equal one process)."""

import pytest

from horovod_needed import require_horovod
from tutorial.parallel.hvd.side_by_side import (ENGINES, format_table, formula_bytes,
                                                ring_bytes, side_by_side)


@pytest.mark.parametrize("workers", [2, 3, 4, 5, 8])
def test_the_ring_formula_is_what_the_ring_schedule_sends(workers):
    sizes = [workers * 7, workers * 100]            # chunks split evenly
    nbytes = 4 * sum(sizes)
    per_worker, busiest, everyone = formula_bytes("Horovod ring", nbytes, workers)
    sent = ring_bytes(sizes, workers)
    assert sent == [per_worker] * workers and busiest == per_worker
    assert sum(sent) == everyone


@pytest.mark.parametrize("workers, servers", [(2, 1), (8, 1), (8, 4), (3, 3)])
def test_a_parameter_server_sends_w_m_over_s_and_the_ring_at_most_2m(workers, servers):
    M = 1000
    ps = formula_bytes("ps-lite dist_sync", M, workers, servers)
    ring = formula_bytes("Horovod ring", M, workers)
    assert ps == (M, max(M, workers * M // servers), 2 * workers * M)
    assert ring[1] < 2 * M
    assert ring[2] * workers == ps[2] * (workers - 1)     # 2(W-1)M against 2WM


def test_an_unknown_engine_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="engine must be one of 'ps-lite dist_sync'"):
        formula_bytes("allgather", 10, 2)
    with pytest.raises(ValueError, match="unknown engines"):
        side_by_side(None, engines=("nccl",))


@pytest.mark.slow
def test_three_engines_train_the_same_weights_as_one_process():
    require_horovod()
    from tutorial.parallel.ps.digits_job import DigitsJob
    rows = side_by_side(DigitsJob(steps=4, batch_per_worker=8, hidden=(16,)), num_workers=2,
                        timeout=100)
    assert [r.engine for r in rows] == list(ENGINES)
    assert [r.processes for r in rows] == [3, 2, 1]
    assert all(r.vs_one_process < 1e-5 for r in rows)
    M = 4 * (16 * 64 + 16 + 10 * 16 + 10)
    assert [r.bytes_all for r in rows] == [4 * M, 2 * M, 2 * M]
    assert all(r.seconds_per_step > 0 for r in rows)
    assert format_table(rows).splitlines()[2].startswith("ps-lite dist_sync")
