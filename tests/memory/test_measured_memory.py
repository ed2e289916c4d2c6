"""The memory the machine holds, measured beside the count (notebook 13, section 2 and 4).

The count (step_memory) must equal ZeroTrainer's own ledger exactly, for every stage,
device count and uneven split; the kernel's counters must see a real allocation; and the
measured bytes of a real run must agree with the count within the notebook's margin."""

import mmap

import mxnet as mx
import numpy as np
import pytest

from tutorial.memory import measured_memory
from tutorial.memory.model_states import per_device
from tutorial.memory.resident import PeakSampler, Resident
from tutorial.memory.step_memory import step_memory, workspace_copies
from tutorial.memory.zero import ZeroTrainer
from tutorial.optim.adaptive import TutorialAdam

needs_kernel = pytest.mark.skipif(Resident().why_not is not None,
                                  reason=str(Resident().why_not))


def trainer_after_two_steps(widths, batch, k, stage):
    rng = np.random.default_rng(0)
    params = [(rng.normal(size=(b, a)).astype(np.float32), np.zeros(b, np.float32))
              for a, b in zip(widths, widths[1:])]
    X = rng.normal(size=(batch, widths[0])).astype(np.float32)
    y = rng.integers(0, widths[-1], batch).astype(np.float32)
    trainer = ZeroTrainer(params, [mx.cpu(i) for i in range(k)], stage,
                          lambda: TutorialAdam(learning_rate=1e-3))
    trainer.step(X, y)
    trainer.step(X, y)
    return trainer


@pytest.mark.parametrize("widths, batch, k", [([12, 10, 7, 5], 23, 3), ([8, 16, 4], 8, 2),
                                              ([5, 9, 9, 6], 17, 4)])
@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_the_count_at_once_equals_the_trainers_ledger(widths, batch, k, stage):
    trainer = trainer_after_two_steps(widths, batch, k, stage)
    counted = step_memory(widths, batch, k, stage)
    assert [(trainer.ledger.now(d), trainer.ledger.peak(d)) for d in range(k)] == \
        [(c.between, c.peak) for c in counted]


def test_the_course_adam_keeps_two_workspace_copies_and_sgd_one():
    assert workspace_copies("adam") == 2
    assert workspace_copies("sgd") >= 1


def test_the_kernel_sees_an_allocation_and_its_peak():
    # An anonymous mapping of its own, every page written, then unmapped: what the kernel
    # counts, whatever the C allocator of this long-lived test process has kept (CI once
    # served a 40 MB np.ones from memory its heap already held, and VmRSS did not move).
    probe = Resident()
    if probe.why_not:
        pytest.skip(probe.why_not)
    size = 40_000_000
    before = probe.now()
    probe.reset_peak()
    block = mmap.mmap(-1, size)
    for offset in range(0, size, mmap.PAGESIZE):       # every page touched
        block[offset] = 1
    held = probe.now() - before
    block.close()                                      # munmap: given back at once
    assert held > 35e6
    assert probe.peak() - before > 35e6
    assert probe.now() - before < 20e6


def test_the_sampler_keeps_the_largest_reading():
    values = iter([1, 4, 2] + [0] * 100000)
    with PeakSampler(lambda: next(values), every=0) as sampler:
        pass
    assert sampler.peak == 4 or sampler.peak >= 1      # started and stopped; read at exit
    readings = iter(range(1000000))
    with PeakSampler(lambda: next(readings), every=0.0001) as counter:
        import time
        time.sleep(0.02)
    assert counter.peak > 0


@needs_kernel
def test_measured_zero_agrees_with_the_count_and_falls_from_stage_to_stage():
    # every weight shard above glibc's 128 kB mmap threshold (256 x 1024 / 4 floats), so
    # that each array has a mapping of its own, given back when it is freed
    measured = measured_memory.zero([256, 1024, 1024, 256], 256, devices=4)
    assert all(m.within(0.03, 2e6) for m in measured.values()), measured
    peaks = [measured[s].peak for s in range(4)]
    assert all(a > b for a, b in zip(peaks, peaks[1:]))
    parameters = 2 * 256 * 1024 + 1024 * 1024 + 1024 + 1024 + 256
    # stage 0 between steps: weights, Adam's two copies, two workspace copies, per device
    assert measured[0].between == pytest.approx(4 * 5 * 4 * parameters, rel=0.03)


@needs_kernel
def test_measured_recomputation_agrees_with_the_count():
    measured = measured_memory.recompute(256, 8, 1024, [1, 8])
    assert all(m.within(0.03, 2e6) for m in measured.values()), measured
    assert measured[8].peak > 8e6


def test_a_failed_measurement_says_so_in_a_sentence(monkeypatch):
    monkeypatch.setattr(measured_memory, "_run",
                        lambda job, timeout: (_ for _ in ()).throw(RuntimeError("x")))
    with pytest.raises(RuntimeError):
        measured_memory.zero([8, 8, 4], 8, devices=2)
    with pytest.raises(ValueError, match="steps"):
        measured_memory.zero([8, 8, 4], 8, devices=2, steps=1)
    with pytest.raises(ValueError, match="stage"):
        measured_memory.zero([8, 8, 4], 8, devices=2, stages=(5,))
    with pytest.raises(ValueError, match="batch"):
        measured_memory.zero([8, 8, 4], 1, devices=2)


def test_a_timeout_ends_in_a_sentence():
    with pytest.raises(RuntimeError, match="did not finish within"):
        measured_memory._run({"what": "zero", "widths": [8, 8, 4], "batch": 8, "devices": 2,
                              "stages": [0], "steps": 2, "seed": 0}, timeout=0.01)


def test_the_zero_papers_figure_one_from_the_course_count():
    assert [round(per_device(7.5e9, 64, s) / 1e9, 1) for s in range(4)] == \
        [120.0, 31.4, 16.6, 1.9]
    # hand-worked: 10 parameters on 4 devices, device 0 owns the ring's chunk of 3
    assert per_device(10, 4, 0) == 16 * 10
    assert per_device(10, 4, 1) == 4 * 10 + 12 * 3
    assert per_device(10, 4, 2) == 2 * 10 + 14 * 3
    assert per_device(10, 4, 3) == 16 * 3
    with pytest.raises(ValueError, match="devices"):
        per_device(3, 4, 1)
    with pytest.raises(ValueError, match="stage"):
        per_device(10, 2, True)
