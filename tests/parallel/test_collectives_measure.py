"""Measurement helpers: rows as nccl-tests reports them, and fits that recover a known model."""

import pytest

from tutorial.devices import virtual_devices
from tutorial.parallel import costmodel
from tutorial.parallel.collectives import Schedule, Step, Transfer, problems, schedule
from tutorial.parallel.collectives import measure as m

SIZES = [1 << 10, 1 << 14, 1 << 18, 1 << 22]


@pytest.mark.parametrize("model", ["parallel", "shared"])
def test_fit_recovers_the_network_that_made_the_timings(model):
    network = (50e-6, 1e-9, 2e-10)
    rows = [dict(method=a, nbytes=s, seconds=m.model_seconds(a, 4, s, network, model))
            for a in m.OURS for s in SIZES]
    fitted = m.fit_network(rows + [dict(method="device", nbytes=1024, seconds=1.0)], 4, model)
    assert fitted == pytest.approx(network, rel=1e-6)
    assert m.median_relative_error(rows, 4, fitted, model) < 1e-6


def test_shared_model_counts_every_transfer_of_the_schedule():
    plan = schedule("ring", 4, 1024)           # 4096 bytes: chunks of 1024 bytes
    n, chunk = 4, 1024                         # 2N(N-1) transfers, half of them adds
    assert costmodel.serial_terms(plan) == (2 * n * (n - 1), 2 * n * (n - 1) * chunk,
                                            n * (n - 1) * chunk)
    assert m.model_terms("ring", 4, 4096, "shared") == costmodel.serial_terms(plan)


def test_measure_reports_algbw_and_busbw_for_every_method():
    rows = m.measure(virtual_devices(3), [1000], repeats=1)
    assert [r["method"] for r in rows] == list(m.OURS + m.KVSTORES)
    for r in rows:
        assert r["nbytes"] == 1000 and r["seconds"] > 0
        assert r["algbw"] == pytest.approx(1000 / r["seconds"])
        assert r["busbw"] == pytest.approx(r["algbw"] * 4 / 3)
    table = m.format_table(rows, 3, (1e-5, 1e-9, 0.0))
    assert len(table.splitlines()) == 1 + len(rows) and "busbw GB/s" in table


def test_problems_name_missing_and_double_counted_data():
    twice = Schedule("twice", 2, 1, 4, ((0, 1),), (
        Step("swap", (Transfer(0, 1, 0, 0, 1, 4, "add"), Transfer(1, 0, 0, 0, 1, 4, "add"))),
        Step("again", (Transfer(0, 1, 0, 0, 1, 4, "add"),))))
    assert problems(twice) == ["node 1, chunk 0: 2 copies of node 0's data",
                               "node 1, chunk 0: 2 copies of node 1's data"]
    assert problems(schedule("ring", 5, 3)) == []


def test_bad_input_gets_a_clear_error():
    with pytest.raises(ValueError, match="unknown method 'nccl'"):
        m.summer("nccl", [])
    with pytest.raises(ValueError, match="unknown model 'mesh'"):
        m.model_terms("ring", 4, 1024, "mesh")
    with pytest.raises(ValueError, match="needs timings of at least one of"):
        m.fit_network([dict(method="device", nbytes=1, seconds=1.0)], 2)
