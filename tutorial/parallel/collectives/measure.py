"""Time our allreduce against MXNet's kvstore and report it as nccl-tests does.

Each method sums the same arrays (one per device); a timing is the median of
``repeats`` runs after one warm-up, waiting for MXNet's asynchronous engine to finish.
``fit_network`` finds the alpha, beta and gamma under which a cost model best explains
the timings of our four algorithms (non-negative least squares on relative error), for
two models: 'parallel' (the alpha-beta model: nodes work at the same time, the busiest
one sets the pace) and 'shared' (every transfer one after another, as when all the
"devices" are contexts on one machine's cores).
"""

import time

import mxnet as mx
import numpy as np

from tutorial.parallel import costmodel
from tutorial.progress import Progress
from tutorial.validate import check_count, check_range

from .dispatch import ALGORITHMS as OURS, bind, schedule

KVSTORES = ("device", "local")


def make_arrays(devices, nbytes, seed=0):
    """One float32 array of ``nbytes`` bytes (rounded down, at least 1 element) per device."""
    check_range("nbytes", nbytes, 1)
    length = max(1, int(nbytes) // 4)
    rng = np.random.default_rng(seed)
    return [mx.nd.array(rng.standard_normal(length).astype(np.float32), ctx=d)
            for d in devices]


def summer(method, arrays):
    """A function of no arguments that sums ``arrays`` once with ``method``."""
    if method in OURS:            # buffers allocated once, as the kvstore below keeps its own
        bound = bind(arrays, method, out=[mx.nd.zeros(a.shape, ctx=a.context) for a in arrays])
        return bound
    if method in KVSTORES:
        kv = mx.kv.create(method)
        kv.init(0, mx.nd.zeros(arrays[0].shape))
        outs = [mx.nd.zeros(a.shape, ctx=a.context) for a in arrays]
        return lambda: kv.pushpull(0, arrays, out=outs)
    raise ValueError(f"unknown method {method!r}: choose from {OURS + KVSTORES}")


def median_seconds(fn, repeats):
    """Median wall time of ``fn`` over ``repeats`` runs, after one warm-up run."""
    check_count("repeats", repeats)
    fn()
    mx.nd.waitall()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        mx.nd.waitall()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def measure(devices, sizes, methods=OURS + KVSTORES, repeats=5):
    """Rows of {method, nbytes, seconds, algbw, busbw} for every method and size in bytes."""
    check_count("repeats", repeats)
    if not devices:
        raise ValueError("devices is empty: pass a list of contexts, e.g. [mx.cpu(0), mx.cpu(1)]")
    for i, nbytes in enumerate(sizes):
        check_range(f"sizes[{i}]", nbytes, 1)        # bytes per array
    unknown = [m for m in methods if m not in OURS + KVSTORES]
    if isinstance(methods, str) or unknown:
        raise ValueError(f"methods must be a list drawn from {OURS + KVSTORES}, got {methods!r}")
    rows = []
    progress = Progress(f"timing {len(methods)} methods", len(sizes) * len(methods))
    for nbytes in sizes:
        arrays = make_arrays(devices, nbytes)
        real = arrays[0].size * 4
        for method in methods:
            progress.advance(f"{method}, {nbytes:,} bytes", by=0)
            seconds = median_seconds(summer(method, arrays), repeats)
            rows.append(dict(method=method, nbytes=real, seconds=seconds,
                             algbw=costmodel.algbw(real, seconds),
                             busbw=costmodel.busbw(real, seconds, len(devices))))
            progress.advance(f"{method}, {nbytes:,} bytes")
    return rows


def model_terms(method, num_nodes, nbytes, model="parallel"):
    """(A, B, C) of ``method`` under ``model``: seconds = A alpha + B beta + C gamma."""
    if model == "parallel":
        return costmodel.cost_terms(method, num_nodes, nbytes)
    if model == "shared":
        return costmodel.serial_terms(schedule(method, num_nodes, max(1, int(nbytes) // 4)))
    raise ValueError(f"unknown model {model!r}: choose 'parallel' or 'shared'")


def model_seconds(method, num_nodes, nbytes, network, model="parallel"):
    """The time ``model`` predicts with ``network`` = (alpha, beta, gamma)."""
    return float(np.dot(model_terms(method, num_nodes, nbytes, model), network))


def fit_network(rows, num_nodes, model="parallel"):
    """(alpha, beta, gamma) >= 0 that best fit our algorithms' timings (relative error)."""
    from scipy.optimize import nnls

    ours = [r for r in rows if r["method"] in OURS]
    if not ours:
        raise ValueError("fit_network needs timings of at least one of " + ", ".join(OURS))
    terms = np.array([model_terms(r["method"], num_nodes, r["nbytes"], model)
                      for r in ours], dtype=float)
    seconds = np.array([r["seconds"] for r in ours])
    weights = 1 / seconds                       # relative error: small sizes count too
    scale = terms.max(axis=0)
    scale[scale == 0] = 1
    solution, _ = nnls(terms / scale * weights[:, None], seconds * weights)
    return tuple(float(v) for v in solution / scale)


def median_relative_error(rows, num_nodes, network, model="parallel"):
    """Median of |model - measured| / measured over our algorithms' rows."""
    errors = [abs(model_seconds(r["method"], num_nodes, r["nbytes"], network, model)
                  - r["seconds"]) / r["seconds"] for r in rows if r["method"] in OURS]
    return float(np.median(errors))


def format_table(rows, num_nodes, network=None, model="parallel"):
    """The table nccl-tests would print, plus the model's prediction when ``network`` is given."""
    head = f"{'bytes':>10} {'method':>9} {'time ms':>9} {'algbw GB/s':>10} {'busbw GB/s':>10}"
    lines = [head + (f" {'model ms':>9}" if network else "")]
    for r in rows:
        line = (f"{r['nbytes']:>10} {r['method']:>9} {r['seconds'] * 1e3:>9.3f} "
                f"{r['algbw'] / 1e9:>10.3f} {r['busbw'] / 1e9:>10.3f}")
        if network and r["method"] in OURS:
            seconds = model_seconds(r["method"], num_nodes, r["nbytes"], network, model)
            line += f" {seconds * 1e3:>9.3f}"
        lines.append(line)
    return "\n".join(lines)
