"""Our allreduce (ps, tree, butterfly, ring) against MXNet's kvstore 'device' and 'local'.

    .venv/bin/python benchmarks/allreduce.py            # 1 KB .. 64 MB, 4 devices
    .venv/bin/python benchmarks/allreduce.py --quick    # 3 sizes

Prints, for each size, the median time, algbw and busbw (as nccl-tests reports them)
and the time ratio to kvstore 'device' in the same process, then the alpha, beta,
gamma that best fit our timings under two models ('parallel': the alpha-beta model;
'shared': every transfer one after another) and the better one's prediction. On CPU the
devices are contexts sharing this machine's cores and memory: the numbers show the
overhead of each schedule, not a network.

Last, busbw / kvstore 'device' busbw for every method (higher is better) next to the
physical bound: an allreduce into separate outputs must at least read every input and
write every output (2 x devices x bytes), so its time is at least that over the memory
bandwidth measured in this process (``bandwidth.py``). ``--save FILE`` keeps those
ratios as JSON and ``--before FILE`` prints a saved run's next to them (before/after;
benchmarks/README.md has the one for the buffers-bound-once rewrite).
"""

import argparse
import json

from tutorial.config import fast_mode
from tutorial.devices import describe, training_devices
from tutorial.parallel import costmodel
from tutorial.parallel.collectives.measure import (fit_network, format_table, measure,
                                                   median_relative_error)
from bandwidth import bandwidth


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three sizes, three repeats")
    parser.add_argument("--devices", type=int, default=4, help="number of devices (4)")
    parser.add_argument("--save", metavar="FILE", help="write the busbw ratios to FILE (JSON)")
    parser.add_argument("--before", metavar="FILE", help="print the ratios saved in FILE too")
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
    reference = {r["nbytes"]: r for r in rows if r["method"] == "device"}
    methods = list(dict.fromkeys(r["method"] for r in rows))
    print(f"{'bytes':>10} " + " ".join(f"{m:>9}" for m in methods))
    for nbytes, ref in reference.items():
        ratios = {r["method"]: r["seconds"] / ref["seconds"] for r in rows
                  if r["nbytes"] == nbytes}
        print(f"{nbytes:>10} " + " ".join(f"{ratios[m]:>9.2f}" for m in methods))
    print_busbw_ratios(rows, reference, methods, n, args)


def print_busbw_ratios(rows, reference, methods, n, args):
    """busbw / kvstore 'device' busbw per method and size, the physical bound, before."""
    rate = bandwidth()
    before = json.load(open(args.before)) if args.before else {}
    print(f"\nbusbw / kvstore 'device' busbw (higher is better); memory bandwidth "
          f"{rate / 1e9:.1f} GB/s (read + write, measured now); bound = 2 x {n} x bytes / "
          "bandwidth" + ("; (before)" if before else ""))
    print(f"{'bytes':>10} " + " ".join(f"{m:>9}" for m in methods)
          + f" {'device ms':>10} {'bound ms':>9} {'bound busbw GB/s':>17}")
    saved = {}
    for nbytes, ref in reference.items():
        cells = []
        for r in (r for r in rows if r["nbytes"] == nbytes):
            key = f"{r['method']}@{nbytes}"
            saved[key] = r["busbw"] / ref["busbw"]
            cells.append(f"{saved[key]:>9.2f}" if key not in before else
                         f"{saved[key]:>4.2f}({before[key]:.2f})".rjust(9))
        bound = 2 * n * nbytes / rate
        print(f"{nbytes:>10} " + " ".join(cells) + f" {ref['seconds'] * 1e3:>10.3f} "
              f"{bound * 1e3:>9.3f} {costmodel.busbw(nbytes, bound, n) / 1e9:>17.2f}")
    if args.save:
        with open(args.save, "w") as f:
            json.dump(saved, f, indent=1)


if __name__ == "__main__":
    main()
