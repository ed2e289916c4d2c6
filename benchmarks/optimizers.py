"""Per-step update time of each tutorial.optim optimizer against MXNet's built-in one.

Both run on the same parameter set (ResNet-18's 62 arrays, about 11.7M float32 values,
shapes read from gluon's model zoo without weights) through ``mx.optimizer.Updater``,
the object ``gluon.Trainer`` uses, so MXNet gets its aggregated multi-tensor kernels
where it has them. Prints a table: milliseconds per step and the
ratio ours / MXNet. Each time is the best of several repeats (as ``timeit`` advises: on
a shared machine the slower repeats measure the neighbours). Timings only: nothing here
is asserted in tests.

    .venv/bin/python benchmarks/optimizers.py            # ResNet-18 shapes (~11.7M)
    .venv/bin/python benchmarks/optimizers.py --quick    # channels / 4 (~0.7M), fewer steps
"""

import argparse
import time

import mxnet as mx
import numpy as np

import tutorial.optim as topt

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller arrays, fewer steps")
    args = parser.parse_args()
    shapes = resnet18_shapes(4 if args.quick else 1)
    steps, repeats = (3, 3) if args.quick else (3, 5)
    size = sum(int(np.prod(s)) for s in shapes)
    print("%d arrays, %.2fM parameters, best of %d repeats of %d steps, ms per step"
          % (len(shapes), size / 1e6, repeats, steps))
    print("%-22s %10s %10s %8s" % ("optimizer", "ours", "mxnet", "ratio"))
    ratios = []
    for label, ours, theirs, kwargs in PAIRS:
        extra = dict(tau=4) if ours == "local_adagrad" else {}
        t_ours = time_updates(topt.create(ours, **COMMON, **kwargs, **extra), shapes, steps,
                              repeats)
        t_mx = time_updates(mx.optimizer.create(theirs, **COMMON, **kwargs), shapes, steps,
                            repeats)
        ratio = t_ours / t_mx
        if ours != "local_adagrad":
            ratios.append(ratio)
        print("%-22s %10.1f %10.1f %7.2fx" % (label, 1e3 * t_ours, 1e3 * t_mx, ratio))
    print("geometric mean ratio (MXNet algorithms): %.2fx" % float(np.exp(np.mean(np.log(ratios)))))


if __name__ == "__main__":
    main()
