"""Step time of our from-scratch data-parallel trainer vs gluon.Trainer (kvstore 'device').

Same devices, same model, same batches, in one process; rounds alternate between the
two so that a busy machine slows both alike. Prints the median step time of each and
their ratio (ours / gluon; the aim is <= 1.10).

    .venv/bin/python benchmarks/data_parallel.py            # full
    .venv/bin/python benchmarks/data_parallel.py --quick    # a few seconds

On CPU contexts standing in for GPUs the times show overhead, not speed-up.
"""

import argparse
import statistics
import time

from tutorial.devices import describe, training_devices
from tutorial.parallel.concise import GluonDataParallel
from tutorial.parallel.trainer import DataParallelTrainer
from tutorial.parallel.workload import digits_batches, mlp


def time_steps(trainer, batches, steps):
    """Median seconds per step over ``steps`` untimed steps (each ends when its loss is read)."""
    times = []
    for _ in range(steps):
        X, y = next(batches)
        start = time.perf_counter()
        trainer.step(X, y, timed=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and rounds")
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--per-device-batch", type=int, default=64)
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    args = parser.parse_args(argv)
    steps, rounds = (20, 3) if args.quick else (50, 7)
    devices = training_devices(args.devices)
    batch = args.per_device_batch * len(devices)
    print(f"devices: {describe(devices)}; MLP 64-{'-'.join(map(str, args.hidden))}-10; "
          f"batch {batch} ({args.per_device_batch} per device); {rounds} rounds x {steps} steps")

    trainers = {
        "from scratch (kvstore 'device')": DataParallelTrainer(
            mlp(tuple(args.hidden), seed=0), devices, aggregation="device", learning_rate=0.05),
        "gluon.Trainer (kvstore 'device')": GluonDataParallel(
            mlp(tuple(args.hidden), seed=0), devices, kvstore="device", learning_rate=0.05),
    }
    batches = {name: digits_batches(batch, seed=0) for name in trainers}
    for name, trainer in trainers.items():          # warm up: kvstore init, first kernels
        time_steps(trainer, batches[name], 3)
    medians = {name: [] for name in trainers}
    for _ in range(rounds):
        for name, trainer in trainers.items():
            medians[name].append(time_steps(trainer, batches[name], steps))
    ours, gluon = (statistics.median(m) for m in medians.values())
    print(f"{'trainer':36s} {'ms/step':>8s}")
    for name, values in medians.items():
        print(f"{name:36s} {1e3 * statistics.median(values):8.2f}")
    print(f"ratio from scratch / gluon.Trainer: {ours / gluon:.3f} (aim <= 1.10)")
    return ours / gluon


if __name__ == "__main__":
    main()
