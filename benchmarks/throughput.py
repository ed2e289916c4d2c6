"""Throughput scaling of the small ResNet: images/s on K devices against K times one device.

For each per-device batch b and K devices, the from-scratch data-parallel trainer runs a
few warm-up steps, then timed steps; the reference is K = 1 with the same b and inputs,
measured in the same process. Prints tau_K and the efficiency tau_K / (K * tau_1), on
real MNIST-5k batches and on one synthetic batch fed again and again.

    .venv/bin/python benchmarks/throughput.py            # K = 1, 2, 4; b = 16, 64
    .venv/bin/python benchmarks/throughput.py --quick    # a few seconds

On CPU contexts standing in for GPUs the devices share the cores: the efficiency shows the
overhead of splitting and aggregating (at most about cores / K), not a speed-up.
"""

import argparse

from tutorial.devices import describe, training_devices
from tutorial.nn.resnet import resnet
from tutorial.parallel.throughput import measure_scaling
from tutorial.parallel.trainer import DataParallelTrainer


def make_step(devices):
    trainer = DataParallelTrainer(resnet("batch", seed=0), devices, learning_rate=0.05)
    return lambda X, y: trainer.step(X, y, timed=False)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer devices, batches and steps")
    parser.add_argument("--devices", type=int, nargs="+", default=None)
    args = parser.parse_args(argv)
    counts = args.devices or ((1, 2) if args.quick else (1, 2, 4))
    sizes, steps = ((32,), 5) if args.quick else ((16, 64), 20)
    print(f"largest K: {describe(training_devices(max(counts)))}; ResNet for MNIST; "
          f"{steps} timed steps after 2 warm-up steps")
    rows = measure_scaling(make_step, counts, sizes, steps=steps, make_devices=training_devices)
    print(f"{'inputs':9s} {'b':>3s} {'K':>2s} {'images/s':>9s} {'tau_K/(K tau_1)':>15s}")
    for r in rows:
        print(f"{r.inputs:9s} {r.per_device_batch:3d} {r.devices:2d} {r.images_per_s:9.0f} "
              f"{r.efficiency:15.2f}")
    return rows


if __name__ == "__main__":
    main()
