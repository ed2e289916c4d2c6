"""Run notebooks in a fresh kernel without saving them, and fail on what their outputs show.

    python -m tutorial.jupyter.notebook_runs full notebooks/*.ipynb slides/*.ipynb   # make test-full
    python -m tutorial.jupyter.notebook_runs seeds notebooks/*.ipynb slides/*.ipynb  # make test-seeds

``full`` runs each notebook at full size (``TUTORIAL_FAST`` removed from the kernel's
environment), one after another, and times it, kernel start included. When the run
covered every notebook of the README's course map and none failed, it writes their
times into the map (:mod:`tutorial.jupyter.course_map`).

``seeds`` runs each notebook in fast mode under ``TUTORIAL_SEED`` = 1, 2 and 3
(``--seeds`` picks others, :mod:`tutorial.seeds`): a compared check must hold for more
than one seed. A cell ``import tutorial`` goes in front, so the shift is in place before
the notebook's first line; cells keep their committed numbers in the report.

Both read the outputs with :func:`tutorial.jupyter.shown_checks.failures` (a check that printed
False, an error), name notebook, cell and seed of each, and exit 1 if there was any.
Neither writes a notebook: the committed outputs come from ``make execute-notebooks``.
"""

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import Tuple

from tutorial.jupyter import course_map
from tutorial.config import ENV_VAR as FAST_VAR
from tutorial.seeds import ENV_VAR as SEED_VAR
from tutorial.jupyter.shown_checks import failures

REPO_ROOT = Path(__file__).resolve().parents[2]
SEED_CELL = "import tutorial  # TUTORIAL_SEED shifts every seed from here on (make test-seeds)"
DEFAULT_SEEDS = (1, 2, 3)


@dataclasses.dataclass(frozen=True)
class Run:
    path: Path
    seed: int                     # the TUTORIAL_SEED it ran under (0: the committed seeds)
    fast: bool
    seconds: float                # wall time, kernel start included
    failures: Tuple[str, ...]     # "cell N: ...", cells counted as in the committed file

    def lines(self):
        where = f"{self.path}" + (f", seed {self.seed}" if self.seed else "")
        return [f"{where}: {failure}" for failure in self.failures]


def kernel_env(fast, seed, env=None):
    """The environment a notebook's kernel gets: fast mode or full size, the seed shift,
    and this copy of the library first on the path."""
    env = dict(os.environ if env is None else env)
    env.pop(FAST_VAR, None)
    env.pop(SEED_VAR, None)
    if fast:
        env[FAST_VAR] = "1"
    if seed:
        env[SEED_VAR] = str(seed)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


def prepared(nb, seed):
    """The notebook as it will run: outputs cleared, and the seed cell in front if ``seed``."""
    import nbformat

    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    if seed:
        nb.cells.insert(0, nbformat.v4.new_code_cell(SEED_CELL))
    return nb


def run(path, fast, seed=0, timeout=3600, keep=None):
    """Execute ``path`` in a fresh kernel (its folder as working directory).

    Nothing is written to ``path``; ``keep``, a folder, gets the executed copy (named
    after the notebook and the seed) for reading its numbers.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    path = Path(path)
    nb = prepared(nbformat.read(path, as_version=4), seed)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    stopped = []
    try:
        client.execute(env=kernel_env(fast, seed))
    except CellExecutionError:
        pass                      # the error output is in the cell: failures() reports it
    except (CellTimeoutError, DeadKernelError) as exc:
        stopped.append(f"stopped: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    seconds = time.perf_counter() - start
    if keep is not None:
        Path(keep).mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, Path(keep) / f"{path.stem}.seed{seed}.ipynb")
    found = failures(nb, first_cell=1 if seed else 0) + stopped
    return Run(path, seed, fast, seconds, tuple(found))


def full(paths, readme=REPO_ROOT / "README.md", today=None, runner=run):
    """Run ``paths`` at full size; write their times into the course map if that is honest."""
    runs = []
    for path in paths:
        done = runner(path, fast=False)
        print(f"{path}: {course_map.duration(done.seconds)}"
              + (f", {len(done.failures)} failure(s)" if done.failures else ""), flush=True)
        for line in done.lines():
            print("  " + line, flush=True)
        runs.append(done)
    bad = [line for done in runs for line in done.lines()]
    text = Path(readme).read_text()
    timed = {done.path.stem: done.seconds for done in runs if done.path.parent.name == "notebooks"}
    missing = sorted(set(course_map.times(text)) - set(timed))
    if bad or missing:
        why = "a notebook failed" if bad else f"the run left out {', '.join(missing)}"
        print(f"{readme} not rewritten: {why}")
    else:
        import datetime
        deck = [f"; the deck, `{d.path.parent.name}/{d.path.name}`, took "
                f"{course_map.duration(d.seconds)}" for d in runs if d.path.parent.name != "notebooks"]
        date = today or datetime.date.today().isoformat()
        paragraph = course_map.measured_paragraph(date, course_map.machine(), "".join(deck))
        Path(readme).write_text(course_map.rewrite(text, timed, paragraph))
        print(f"{readme}: course map times rewritten from this run")
    return bad


def seeds(paths, seed_values=DEFAULT_SEEDS, runner=run, keep=None):
    """Run ``paths`` in fast mode under each seed shift; the failures, named."""
    bad = []
    for path in paths:
        for seed in seed_values:
            done = runner(path, fast=True, seed=seed, **({"keep": keep} if keep else {}))
            status = "ok" if not done.failures else f"{len(done.failures)} failure(s)"
            print(f"{path}, seed {seed}: {status} ({course_map.duration(done.seconds)})",
                  flush=True)
            for line in done.lines():
                print("  " + line, flush=True)
            bad.extend(done.lines())
    return bad


def parser():
    """The command line of ``make test-full`` and ``make test-seeds``."""
    parser = argparse.ArgumentParser(prog="python -m tutorial.jupyter.notebook_runs")
    sub = parser.add_subparsers(dest="command", required=True)
    fu = sub.add_parser("full", help="every notebook at full size; times into README.md")
    fu.add_argument("paths", nargs="+")
    fu.add_argument("--readme", default=str(REPO_ROOT / "README.md"))
    se = sub.add_parser("seeds", help="every notebook in fast mode under other seeds")
    se.add_argument("paths", nargs="+")
    se.add_argument("--seeds", type=int, nargs="+", default=list(DEFAULT_SEEDS))
    se.add_argument("--keep", metavar="FOLDER", help="write each executed copy there")
    return parser


def main(argv=None):
    parser_ = parser()
    args = parser_.parse_args(argv)
    if args.command == "full":
        bad = full(args.paths, readme=args.readme)
    else:
        if any(k < 1 for k in args.seeds):
            parser_.error("--seeds: each shift must be >= 1 (0 is the committed run)")
        bad = seeds(args.paths, args.seeds, keep=args.keep)
    print(f"{len(bad)} failure(s)" + "".join(f"\n  {line}" for line in bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
