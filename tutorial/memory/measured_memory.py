"""ZeRO's and recomputation's memory measured on the machine, beside the count.

:func:`zero` trains the MLP ``widths`` with :class:`~tutorial.memory.zero.ZeroTrainer` for
each stage, and :func:`recompute` takes the gradients of a deep MLP with each number of
segments (:func:`tutorial.memory.recompute.gradients`), in a **fresh process** started with
:data:`tutorial.memory.resident.ENV` (the settings under which resident memory follows the
live arrays). Each returns, per setting, a :class:`Measured`: the bytes the process held
above its baseline (taken once the devices are up and the data is made) between two steps
and at the peak of a step, read from the kernel (:class:`~tutorial.memory.resident.Resident`),
beside the same two numbers counted (:mod:`tutorial.memory.step_memory`, or the
recomputation's ledger). CPU contexts are one process, so the numbers are the sum over
the devices; on GPUs each device's used memory is read and summed.

What the count leaves out shows up in the difference: what an operator allocates inside
itself for a moment (a layer's output recomputed in its backward), the batch as it is
copied to the devices, and the allocator's rounding to whole pages.
"""

import gc
import json
import sys
from typing import NamedTuple

from tutorial import fresh_process
from tutorial.validate import check_count

TIMEOUT = 600


class Measured(NamedTuple):
    """Bytes above the baseline, measured and counted: between steps, and at the peak."""
    between: int
    peak: int
    counted_between: int
    counted_peak: int

    def within(self, relative, absolute):
        """Both measurements within ``relative`` of the count, or within ``absolute`` bytes."""
        return all(abs(m - c) <= max(relative * c, absolute) for m, c in
                   ((self.between, self.counted_between), (self.peak, self.counted_peak)))


def _run(job, timeout):
    from tutorial.memory.resident import ENV
    return fresh_process.run("the memory measurement", module="tutorial.memory.measured_memory",
                             args=[job], env=ENV, timeout=timeout,
                             hint="the machine is too busy or the sizes too large; use "
                                  "smaller widths or pass a larger timeout=")


def zero(widths, batch, devices=4, stages=(0, 1, 2, 3), steps=2, seed=0, timeout=TIMEOUT):
    """{stage: :class:`Measured`} for ZeroTrainer (the course's Adam) on ``devices``
    devices: GPUs when this machine has that many, otherwise CPU contexts."""
    from tutorial.memory.step_memory import step_memory
    from tutorial.memory.zero import check_stage
    k = check_count("devices", devices)
    steps = check_count("steps", steps, low=2, what="steps: one to warm up, then measured")
    stages = [check_stage(s) for s in stages]
    widths = [check_count("widths", w) for w in widths]
    check_count("batch", batch, low=k, what="samples, at least one per device")
    got = _run({"what": "zero", "widths": widths, "batch": batch, "devices": k,
                "stages": stages, "steps": steps, "seed": seed}, timeout)
    out = {}
    for stage in stages:
        counted = step_memory(widths, batch, k, stage)
        between, peak = got[str(stage)]
        out[stage] = Measured(between, peak, sum(c.between for c in counted),
                              sum(c.peak for c in counted))
    return out


def recompute(width, depth, rows, counts, seed=0, timeout=TIMEOUT):
    """{segments: :class:`Measured`} for the gradients of a ``depth``-layer MLP of
    ``width`` units on ``rows`` samples, on one device. Counted: the ledger's peak (the
    activations, the gradient passed down, the weights' gradients) plus what one hidden
    layer's backward makes inside itself (:func:`~.layers.backward_working_floats`);
    between: nothing (every array of the backward is let go when it returns), counted 0."""
    got = _run({"what": "recompute", "width": check_count("width", width),
                "depth": check_count("depth", depth), "rows": check_count("rows", rows),
                "counts": [check_count("counts", c) for c in counts], "seed": seed}, timeout)
    return {k: Measured(*got[str(k)]) for k in counts}


# ---- the measuring process --------------------------------------------------------------

def _devices(k):
    from tutorial.devices import try_all_gpus, virtual_devices
    gpus = try_all_gpus()
    return gpus[:k] if len(gpus) >= k else virtual_devices(k)


def _meter(devices):
    """(now, a context manager measuring the peak) for these devices."""
    import mxnet as mx

    from tutorial.memory.resident import PeakSampler, Resident, gpu_used
    if devices[0].device_type == "gpu":
        read = lambda: sum(gpu_used(d.device_id) for d in devices)   # noqa: E731

        class Peak:
            def __enter__(self):
                mx.nd.waitall()
                self.sampler = PeakSampler(read).__enter__()
                return self

            def __exit__(self, *exc):
                mx.nd.waitall()
                self.sampler.__exit__(*exc)
                self.value = self.sampler.peak
        return read, Peak
    probe = Resident()
    if probe.why_not:
        raise RuntimeError(probe.why_not)

    class Kernel:
        def __enter__(self):
            probe.reset_peak()
            return self

        def __exit__(self, *exc):
            mx.nd.waitall()
            self.value = probe.peak()
    return probe.now, Kernel


def _settle():
    import mxnet as mx
    mx.nd.waitall()
    gc.collect()


def _zero_job(job):
    import numpy as np

    from tutorial.memory.zero import ZeroTrainer
    from tutorial.optim.adaptive import TutorialAdam
    devices = _devices(job["devices"])
    now, Peak = _meter(devices)
    widths, rng = job["widths"], np.random.default_rng(job["seed"])
    params = [(rng.normal(scale=a ** -0.5, size=(b, a)).astype(np.float32),
               np.zeros(b, np.float32)) for a, b in zip(widths, widths[1:])]
    X = rng.normal(size=(job["batch"], widths[0])).astype(np.float32)
    y = rng.integers(0, widths[-1], job["batch"]).astype(np.float32)
    small = [(p[:, :len(devices)].copy(), b) for p, b in params[:1]] + \
        [(np.zeros((widths[-1], params[0][0].shape[0]), np.float32),
          np.zeros(widths[-1], np.float32))]
    ZeroTrainer(small, devices, 0, lambda: TutorialAdam(learning_rate=1e-3)) \
        .step(X[:, :len(devices)], y)                      # the engine and BLAS's buffers
    out = {}
    for stage in job["stages"]:
        _settle()
        base = now()
        trainer = ZeroTrainer(params, devices, stage, lambda: TutorialAdam(learning_rate=1e-3))
        for _ in range(job["steps"] - 1):                  # warm-up: workspace, state pages
            trainer.step(X, y)
        _settle()
        with Peak() as peak:
            trainer.step(X, y)
        _settle()
        out[stage] = (now() - base, peak.value - base)
        del trainer
    return out


def _recompute_job(job):
    import mxnet as mx
    import numpy as np

    from tutorial.memory import recompute
    from tutorial.memory.layers import backward_working_floats as recompute_working
    devices = _devices(1)
    now, Peak = _meter(devices)
    width, depth, rows = job["width"], job["depth"], job["rows"]
    rng = np.random.default_rng(job["seed"])
    params = [(mx.nd.array(rng.normal(scale=width ** -0.5, size=(width, width)), ctx=devices[0]),
               mx.nd.zeros(width, ctx=devices[0])) for _ in range(depth)]
    X = rng.normal(size=(rows, width)).astype(np.float32)
    y = rng.integers(0, width, rows).astype(np.float32)
    recompute.gradients(params, X[:2], y[:2], recompute.segments(depth, 1))   # warm-up
    out = {}
    for k in job["counts"]:
        _settle()
        base = now()
        with Peak() as peak:
            grads, _, ledger = recompute.gradients(params, X, y, recompute.segments(depth, k))
        del grads
        _settle()
        inside = 4 * recompute_working(rows, width)          # a layer's backward, inside
        out[k] = (now() - base, peak.value - base, 0, ledger.peak(0) + inside)
    return out


if __name__ == "__main__":
    task = json.loads(sys.argv[1])
    result = (_zero_job if task["what"] == "zero" else _recompute_job)(task)
    print(json.dumps(result))
