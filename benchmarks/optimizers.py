"""Per-step update time of each tutorial.optim optimizer against MXNet's built-in one.

Both run on the same parameter set (ResNet-18's 62 arrays, about 11.7M float32 values,
shapes read from gluon's model zoo without weights) through ``mx.optimizer.Updater``,
the object ``gluon.Trainer`` uses, so MXNet gets its aggregated multi-tensor kernels
where it has them. Prints a table: milliseconds per step and the
ratio ours / MXNet. Each time is the best of several repeats (as ``timeit`` advises: on
a shared machine the slower repeats measure the neighbours). Timings only: nothing here
is asserted in tests.

The physical bound next to each row is the bytes the update must move (read the weight,
the gradient and every state array, write back the weight and the states) divided by the
memory bandwidth measured in this process (``bandwidth.py``): no implementation on this
machine can beat it. ``--save FILE`` keeps the ratios as JSON, ``--before FILE`` prints
them next to this run's (a before/after note; benchmarks/README.md has the one for the
in-place rewrite).

    .venv/bin/python benchmarks/optimizers.py            # ResNet-18 shapes (~11.7M)
    .venv/bin/python benchmarks/optimizers.py --quick    # channels / 4 (~0.7M), fewer steps
    .venv/bin/python benchmarks/optimizers.py --only adam rmsprop --before before.json
"""

import argparse
import json
import time

import mxnet as mx
import numpy as np

import tutorial.optim as topt
from bandwidth import bandwidth

# (row label, our name, MXNet's name, kwargs for both)
PAIRS = [
    ("sgd", "sgd", "sgd", dict(learning_rate=0.1)),
    ("sgd momentum", "momentum", "sgd", dict(learning_rate=0.1, momentum=0.9)),
    ("nag", "nag", "nag", dict(learning_rate=0.1, momentum=0.9)),
    ("adagrad", "adagrad", "adagrad", dict(learning_rate=0.01)),
    ("local adagrad (tau=4)", "local_adagrad", "adagrad", dict(learning_rate=0.01)),
    ("rmsprop", "rmsprop", "rmsprop", dict()),
    ("rmsprop centered", "rmsprop", "rmsprop", dict(centered=True)),
    ("adadelta", "adadelta", "adadelta", dict()),
    ("adam", "adam", "adam", dict()),
    ("adamax", "adamax", "adamax", dict()),
    ("nadam", "nadam", "nadam", dict()),
    ("ftrl", "ftrl", "ftrl", dict()),
    ("signum", "signum", "signum", dict()),
    ("dcasgd", "dcasgd", "dcasgd", dict(learning_rate=0.1)),
    ("sgld", "sgld", "sgld", dict(learning_rate=1e-4)),
    ("lars", "lars", "lars", dict(learning_rate=0.1, momentum=0.9)),
    ("lamb", "lamb", "lamb", dict()),
]
COMMON = dict(wd=1e-4, clip_gradient=5.0, rescale_grad=1.0 / 256)


def resnet18_shapes(width_divisor=1):
    """Shapes of ResNet-18's trainable arrays (model zoo, no download, no weights)."""
    net = mx.gluon.model_zoo.vision.resnet18_v1()
    net.initialize(mx.init.Zero())
    net(mx.nd.zeros((1, 3, 64, 64)))
    shapes = [p.shape for p in net.collect_params().values() if p.grad_req != "null"]
    if width_divisor == 1:
        return shapes
    return [tuple(max(1, d // width_divisor) if i < 2 else d for i, d in enumerate(s))
            for s in shapes]


def time_updates(optimizer, shapes, steps, repeats, seed=0):
    """Best (smallest) seconds per step of ``Updater(optimizer)`` over all arrays."""
    rng = np.random.default_rng(seed)
    weights = [mx.nd.array(rng.normal(scale=0.1, size=s)) for s in shapes]
    grads = [mx.nd.array(rng.normal(size=s)) for s in shapes]
    updater = mx.optimizer.get_updater(optimizer)
    indices = list(range(len(shapes)))
    updater(indices, grads, weights)                   # create states, warm up
    mx.nd.waitall()
    per_step = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            updater(indices, grads, weights)
        mx.nd.waitall()
        per_step.append((time.perf_counter() - start) / steps)
    return min(per_step)


def state_elements(state):
    """Number of values an optimizer state holds (NDArrays nested in tuples and lists)."""
    if isinstance(state, mx.nd.NDArray):
        return state.size
    if isinstance(state, (tuple, list)):
        return sum(state_elements(item) for item in state)
    return 0


def bytes_moved(optimizer, shapes, itemsize=4):
    """Bytes one update must read and write: weight (2x), gradient, states (2x each)."""
    total = 0
    for i, shape in enumerate(shapes):
        weight = mx.nd.zeros(shape)
        total += (3 * weight.size + 2 * state_elements(optimizer.create_state(i, weight)))
    return total * itemsize


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller arrays, fewer steps")
    parser.add_argument("--only", nargs="+", metavar="ROW", help="only these rows (labels)")
    parser.add_argument("--save", metavar="FILE", help="write the ratios to FILE (JSON)")
    parser.add_argument("--before", metavar="FILE", help="print the ratios saved in FILE too")
    args = parser.parse_args()
    shapes = resnet18_shapes(4 if args.quick else 1)
    steps, repeats = (3, 3) if args.quick else (3, 5)
    size = sum(int(np.prod(s)) for s in shapes)
    before = json.load(open(args.before)) if args.before else {}
    rate = bandwidth()
    print("%d arrays, %.2fM parameters, best of %d repeats of %d steps, ms per step; memory "
          "bandwidth %.1f GB/s (read + write, measured now)"
          % (len(shapes), size / 1e6, repeats, steps, rate / 1e9))
    print("%-22s %8s %8s %8s %9s %9s" % ("optimizer", "ours", "mxnet", "ratio", "bound ms",
                                         "ours/bound") + ("  before" if before else ""))
    ratios, saved = [], {}
    for label, ours, theirs, kwargs in PAIRS:
        if args.only and label not in args.only:
            continue
        extra = dict(tau=4) if ours == "local_adagrad" else {}
        optimizer = topt.create(ours, **COMMON, **kwargs, **extra)
        t_ours = time_updates(optimizer, shapes, steps, repeats)
        t_mx = time_updates(mx.optimizer.create(theirs, **COMMON, **kwargs), shapes, steps,
                            repeats)
        bound = bytes_moved(optimizer, shapes) / rate
        ratio = saved[label] = t_ours / t_mx
        if ours != "local_adagrad":
            ratios.append(ratio)
        line = "%-22s %8.1f %8.1f %7.2fx %9.1f %8.1fx" % (
            label, 1e3 * t_ours, 1e3 * t_mx, ratio, 1e3 * bound, t_ours / bound)
        if label in before:
            line += "  %6.2fx" % before[label]
        print(line)
    saved["geometric mean"] = float(np.exp(np.mean(np.log(ratios))))
    print("geometric mean ratio (MXNet algorithms): %.2fx" % saved["geometric mean"]
          + ("  (before: %.2fx)" % before["geometric mean"] if "geometric mean" in before else ""))
    if args.save:
        with open(args.save, "w") as f:
            json.dump(saved, f, indent=1)


if __name__ == "__main__":
    main()
