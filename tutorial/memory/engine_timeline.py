"""MXNet's own overlap: its asynchronous engine, timed with its own profiler.

MXNet does not run an operator when Python calls it: it *pushes* it to its engine,
with the arrays it reads and the arrays it writes, and returns. The engine keeps a
queue per array; an operator runs, on a worker thread of its device, as soon as the
operators before it on every array it touches are done. So ``autograd.backward()``
returns once the backward is pushed, not done, and ``trainer.step()`` pushes, for every
parameter, the kvstore's copies, sum, update and copies back: each waits only for its
own gradient, so the last layer's can travel while the first layers' backward still
runs. ``gluon.Trainer`` pushes parameter i with ``priority=-i``: where several are
ready, the first layers' go first, since the next forward needs those first.

``MXNET_ENGINE_TYPE=NaiveEngine`` makes the engine synchronous: every operator runs to
its end on the thread that pushed it, in the order pushed, so nothing overlaps. The
engine is chosen once, when ``import mxnet`` creates it, so :func:`run` trains in a
fresh Python process per engine: K replicas of the digits MLP (``gluon.Trainer`` with
``kvstore='device'``, SGD; the kvstore copies every gradient to one device, sums, updates
there and copies the weights back), a few warm-up steps, then ``steps`` steps under
``mx.profiler``. Each step waits for all its work (``mx.nd.waitall()``) and is timed with
the wall clock; the Python thread stamps tasks into the trace (``step N``, and when
``forward``, ``backward()`` and ``trainer.step()`` were issued). The trace is written
where the caller says: open it in chrome://tracing or https://ui.perfetto.dev.
:mod:`tutorial.memory.profiler_trace` reads it back, :mod:`tutorial.viz.engine_timeline`
draws it. The batches are copied to the devices before the steps (as a prefetching
loader would), so every copy inside a step is the kvstore's.

``bulk=False`` (the default here) sets ``MXNET_EXEC_BULK_EXEC_TRAIN=0``: each backward
operator is its own engine operation, so the timeline shows them and a gradient can leave
as soon as its operator ends. MXNet's default (``bulk=True``) bundles a device's backward
operators (up to 15) into one operation, ``ImperativeBulk``: fewer pushes, but all its
gradients are ready only when the bundle ends.

What we measured on 2 cores shared with other programs, 4 CPU contexts, the digits MLP
with 3 hidden layers of 256 or 512 units and a batch of 256: the two engines' step times
lay within each other's spread from run to run; about half of a step (256 units) or a
third (512) was the Python thread's own work between operators (Gluon's per-operator
overhead); under the threaded engine communication ran inside the backward's span,
mostly between backward operators rather than beside them. The four devices' backward
operators ran one after another: CPU contexts share ``MXNET_CPU_TEMP_COPY`` (4) scratch
buffers, handed out in turn (:mod:`tutorial.engine`), and operators given the same one
wait for each other. With ``MXNET_CPU_TEMP_COPY=64`` they ran side by side, and the step
took about twice as long (512 units, two runs): four threads' arithmetic on two cores.

MXNet 1.9's profiler keeps one slot per core for CPU contexts and two more, and aborts the
process ("Check failed: idx < DeviceCount()") for a CPU context past them, so :func:`run`
refuses more CPU contexts than cores + 2 on a build without CUDA.
"""

import json
import os
from pathlib import Path
from typing import NamedTuple

from tutorial import fresh_process
from tutorial.memory import profiler_trace
from tutorial.validate import check_count, check_range

ENGINES = {"threaded": "ThreadedEnginePerDevice", "naive": "NaiveEngine"}

SCRIPT = r"""
import json, sys, time
import mxnet as mx
from mxnet import autograd, gluon
from tutorial.parallel.workload import digits_batches, mlp
args = json.loads(sys.argv[1])
ctxs = [mx.gpu(i) if kind == "gpu" else mx.cpu(i) for kind, i in args["devices"]]
net = mlp(tuple(args["hidden"]), seed=0, ctx=ctxs)
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}, kvstore="device")
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
batches, shards = digits_batches(args["batch"], seed=0), []
for _ in range(args["warmup"] + args["steps"]):
    X, y = next(batches)
    shards.append((gluon.utils.split_and_load(X, ctxs), gluon.utils.split_and_load(y, ctxs)))
mx.nd.waitall()
domain, profiling = mx.profiler.Domain("python"), False
class Untimed:
    def stop(self):
        pass
def task(name):
    if not profiling:                   # warm-up steps leave no tasks in the trace
        return Untimed()
    t = mx.profiler.Task(domain, name)
    t.start()
    return t
def step(Xs, ys):
    t = task("forward issued")
    with autograd.record():
        losses = [loss_fn(net(X), y) for X, y in zip(Xs, ys)]
    t.stop()
    t = task("backward() issued")
    autograd.backward(losses)
    t.stop()
    t = task("trainer.step() issued")
    trainer.step(args["batch"])
    t.stop()
    t = task("waitall")
    mx.nd.waitall()
    t.stop()
    return losses
for Xs, ys in shards[:args["warmup"]]:
    step(Xs, ys)
mx.nd.waitall()
mx.profiler.set_config(profile_imperative=True, profile_symbolic=True, profile_api=False,
                       profile_memory=False, aggregate_stats=False, filename=args["trace"])
mx.profiler.set_state("run")
profiling = True
step_ms, losses = [], []
for i, (Xs, ys) in enumerate(shards[args["warmup"]:]):
    whole = task(f"step {i}")
    start = time.perf_counter()
    out = step(Xs, ys)
    step_ms.append(1e3 * (time.perf_counter() - start))
    whole.stop()
    losses.append(out)
mx.profiler.set_state("stop")
mx.profiler.dump()
print(json.dumps({"step_ms": step_ms, "losses": [
    sum(float(l.sum().asscalar()) for l in out) / args["batch"] for out in losses]}))
"""


class EngineRun(NamedTuple):
    engine: str          # "threaded" or "naive"
    devices: tuple       # e.g. ("cpu(0)", "cpu(1)", ...)
    hidden: tuple
    batch: int
    bulk: bool           # MXNet's bundling of backward operators (MXNET_EXEC_BULK_EXEC_TRAIN)
    step_ms: tuple       # wall clock of each profiled step, ms (until waitall returned)
    losses: tuple        # each step's mean loss (the same numbers under both engines)
    trace_path: str      # the Chrome trace: open it in chrome://tracing or ui.perfetto.dev
    trace: profiler_trace.Trace
    steps: tuple         # a profiler_trace.StepTimeline per profiled step


def _devices(devices):
    """[("cpu"|"gpu", id), ...]: ``devices`` as contexts, or a count (GPUs if there are
    that many, else CPU contexts)."""
    import mxnet as mx

    from tutorial.devices import check_devices, try_all_gpus, virtual_devices

    if isinstance(devices, int) and not isinstance(devices, bool):
        k = check_count("devices", devices, what="devices, or a list of contexts")
        gpus = try_all_gpus()
        devices = gpus[:k] if len(gpus) >= k else virtual_devices(k)
    devices = check_devices(devices)
    cpus = [d.device_id for d in devices if d.device_type == "cpu"]
    slots = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if cpus and max(cpus) >= slots + 2 and not mx.runtime.Features().is_enabled("CUDA"):
        raise ValueError(f"devices: cpu({max(cpus)}) is past what MXNet's profiler can record "
                         f"on this {slots}-core machine (cpu(0) to cpu({slots + 1})): it would "
                         f"abort the run; use at most {slots + 2} CPU contexts")
    return [(d.device_type, d.device_id) for d in devices]


def _check(engine, trace_path, hidden, batch, steps, warmup, bulk, timeout, k):
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))}, got {engine!r}")
    if not isinstance(trace_path, (str, os.PathLike)) or not str(trace_path):
        raise ValueError(f"trace_path must be a file name for the trace, got {trace_path!r}")
    if not Path(trace_path).parent.is_dir():
        raise ValueError(f"trace_path={str(trace_path)!r}: its folder does not exist; create "
                         f"it first (e.g. os.makedirs)")
    if not isinstance(hidden, (tuple, list)) or not hidden:
        raise ValueError(f"hidden must be the hidden layers' widths such as (256, 256), "
                         f"got {hidden!r}")
    for i, h in enumerate(hidden):
        check_count(f"hidden[{i}]", h, what="units")
    batch = check_count("batch", batch, what="samples per step over all devices")
    if batch % k:
        raise ValueError(f"batch={batch} does not split evenly over {k} devices: use a "
                         f"multiple of {k}, e.g. {max(k, batch - batch % k)}")
    check_count("steps", steps, what="profiled steps")
    check_count("warmup", warmup, low=0, what="steps before the profiler starts")
    if not isinstance(bulk, bool):
        raise ValueError(f"bulk must be True or False, got {bulk!r}")
    check_range("timeout", timeout, 0.0, low_open=True)


def _label(path, names, lanes):
    """Write the devices' and threads' names into the trace file, so that a trace viewer
    shows cpu(2) as cpu(2) (not "cpu pinned/") and each thread as its lane."""
    with open(path) as f:
        data = json.load(f)
    events = [e for e in data["traceEvents"] if not (
        e.get("ph") == "M" and e.get("name") == "process_name" and e.get("pid") in names)]
    pairs = {(e.get("pid"), e.get("tid")) for e in events
             if e.get("cat") in ("operator", profiler_trace.PYTHON_DOMAIN)}
    events += [{"ph": "M", "name": "process_name", "pid": pid, "args": {"name": name}}
               for pid, name in names.items()]
    events += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                "args": {"name": lanes[tid]}} for pid, tid in sorted(pairs, key=str)
               if tid in lanes]
    with open(path, "w") as f:
        json.dump(dict(data, traceEvents=events), f)


def run(engine, trace_path, devices=4, hidden=(256, 256, 256), batch=256, steps=3, warmup=2,
        bulk=False, timeout=300):
    """Train ``warmup + steps`` steps under ``engine`` in a fresh process, profile the last
    ``steps``; the trace goes to ``trace_path``. Returns an :class:`EngineRun`."""
    on = _devices(devices)
    _check(engine, trace_path, hidden, batch, steps, warmup, bulk, timeout, len(on))
    trace_path = str(Path(trace_path).resolve())
    env = {"MXNET_ENGINE_TYPE": ENGINES[engine],
           "MXNET_EXEC_BULK_EXEC_TRAIN": "1" if bulk else "0"}
    args = {"devices": on, "hidden": list(hidden), "batch": batch, "steps": steps,
            "warmup": warmup, "trace": trace_path}
    result = fresh_process.run(f"training under the {engine} engine", script=SCRIPT,
                               args=[args], env=env, timeout=timeout,
                               hint="give it more time, or fewer steps or a smaller net")
    names = {i: f"cpu({i})" for kind, i in on if kind == "cpu"}    # see parse's docstring
    trace = profiler_trace.parse(trace_path, devices=names)
    _label(trace_path, names, dict(trace.threads))
    return EngineRun(engine, tuple(f"{kind}({i})" for kind, i in on), tuple(hidden), batch,
                     bulk, tuple(result["step_ms"]), tuple(result["losses"]), trace_path,
                     trace, tuple(profiler_trace.steps(trace)))


def compare(folder, repeats=1, **settings):
    """:func:`run` under both engines, ``repeats`` times each, taking turns (a burst of load
    from other programs then slows both alike): {"threaded": [...], "naive": [...]}. The
    traces are ``folder/threaded-1.json``, ``folder/naive-1.json``, ..."""
    repeats = check_count("repeats", repeats, what="runs per engine")
    if not isinstance(folder, (str, os.PathLike)) or not Path(folder).is_dir():
        raise ValueError(f"folder={folder!r} is not an existing folder for the traces")
    runs = {engine: [] for engine in ENGINES}
    for r in range(1, repeats + 1):
        for engine in ENGINES:
            runs[engine].append(run(engine, Path(folder) / f"{engine}-{r}.json", **settings))
    return runs


def median_step(engine_run):
    """The index of the profiled step whose wall time is the median (the lower middle)."""
    order = sorted(range(len(engine_run.step_ms)), key=engine_run.step_ms.__getitem__)
    return order[(len(order) - 1) // 2]
