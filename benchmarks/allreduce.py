"""Our allreduce (ps, tree, butterfly, ring) against MXNet's kvstore 'device' and 'local'.

    .venv/bin/python benchmarks/allreduce.py            # 1 KB .. 64 MB, 4 devices
    .venv/bin/python benchmarks/allreduce.py --quick    # 3 sizes

Prints, for each size, the median time, algbw and busbw (as nccl-tests reports them)
and the time ratio to kvstore 'device' in the same process, then the alpha, beta,
gamma that best fit our timings under two models ('parallel': the alpha-beta model;
'shared': every transfer one after another) and the better one's prediction. On CPU the
devices are contexts sharing this machine's cores and memory: the numbers show the
overhead of each schedule, not a network.
"""

import argparse

from tutorial.config import fast_mode
from tutorial.devices import describe, training_devices
from tutorial.parallel.collectives.measure import (fit_network, format_table, measure,
                                                   median_relative_error)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three sizes, three repeats")
    parser.add_argument("--devices", type=int, default=4, help="number of devices (4)")
    args = parser.parse_args(argv)
    quick = args.quick or fast_mode()
    sizes = [1 << 10, 1 << 16, 1 << 22] if quick else [1 << k for k in range(10, 27, 2)]
    devices = training_devices(args.devices)
    print(f"{describe(devices)}; sizes {sizes[0]} .. {sizes[-1]} bytes")
    rows = measure(devices, sizes, repeats=3 if quick else 5)
    n = len(devices)
    fits = {model: fit_network(rows, n, model) for model in ("parallel", "shared")}
    errors = {model: median_relative_error(rows, n, fits[model], model) for model in fits}
    better = min(errors, key=errors.get)
    print(format_table(rows, n, fits[better], better))
    for model, (alpha, beta, gamma) in fits.items():
        print(f"'{model}' model fitted: alpha = {alpha * 1e6:.1f} us, beta = {beta * 1e9:.3f} "
              f"ns/B, gamma = {gamma * 1e9:.3f} ns/B, median error {errors[model]:.0%}"
              + ("  (model ms column)" if model == better else ""))
    print("\ntime / kvstore 'device' time (lower is faster):")
    reference = {r["nbytes"]: r["seconds"] for r in rows if r["method"] == "device"}
    methods = list(dict.fromkeys(r["method"] for r in rows))
    print(f"{'bytes':>10} " + " ".join(f"{m:>9}" for m in methods))
    for nbytes in reference:
        ratios = {r["method"]: r["seconds"] / reference[nbytes] for r in rows
                  if r["nbytes"] == nbytes}
        print(f"{nbytes:>10} " + " ".join(f"{ratios[m]:>9.2f}" for m in methods))


if __name__ == "__main__":
    main()
