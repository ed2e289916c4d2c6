"""make test-full and make test-seeds: a run saves nothing, names each failure, and the
README is rewritten only from a complete run without failures."""

from pathlib import Path

import nbformat
import pytest

from tutorial.jupyter import notebook_runs
from tutorial.jupyter.notebook_runs import Run

ROOT = Path(__file__).resolve().parent.parent.parent
README = (ROOT / "README.md").read_text()
NAMES = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))


def _write(path, *sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, path)
    return path


def test_kernel_env_sets_or_removes_fast_mode_and_the_seed():
    env = {"TUTORIAL_FAST": "1", "TUTORIAL_SEED": "7", "PYTHONPATH": "elsewhere"}
    full = notebook_runs.kernel_env(fast=False, seed=0, env=env)
    assert "TUTORIAL_FAST" not in full and "TUTORIAL_SEED" not in full
    assert full["PYTHONPATH"].split(":") == [str(ROOT), "elsewhere"]
    seeded = notebook_runs.kernel_env(fast=True, seed=2, env={})
    assert seeded["TUTORIAL_FAST"] == "1" and seeded["TUTORIAL_SEED"] == "2"


def test_prepared_clears_outputs_and_puts_the_seed_cell_first_only_under_a_seed():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "1", execution_count=3, outputs=[nbformat.v4.new_output("stream", text="x: False")])])
    assert notebook_runs.prepared(nb, 0).cells[0].outputs == []
    seeded = notebook_runs.prepared(nb, 2)
    assert seeded.cells[0].source == notebook_runs.SEED_CELL and len(seeded.cells) == 2
    assert nb.cells[0].outputs, "the notebook given is left as it was"


def _fake(seconds=10.0, failing=()):
    def runner(path, fast, seed=0):
        path = Path(path)
        bad = ("cell 3: claim: False",) if path.stem in failing else ()
        return Run(path, seed, fast, seconds, bad)
    return runner


def _paths():
    return [Path("notebooks") / f"{n}.ipynb" for n in NAMES] + [Path("slides/workshop.ipynb")]


def test_full_rewrites_every_time_from_a_complete_clean_run(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(README)
    assert notebook_runs.full(_paths(), readme, today="2030-01-02", runner=_fake(75)) == []
    text = readme.read_text()
    assert text.count("| 1 min 15 s | ✅ |") == len(NAMES)
    assert "measured on 2030-01-02 by `make test-full`" in text
    assert "the deck, `slides/workshop.ipynb`, took 1 min 15 s" in text


@pytest.mark.parametrize("paths, failing", [(_paths()[:2], ()), (_paths(), ("03_adaptive",))])
def test_full_leaves_the_readme_alone_after_a_partial_or_failed_run(tmp_path, paths, failing):
    readme = tmp_path / "README.md"
    readme.write_text(README)
    bad = notebook_runs.full(paths, readme, runner=_fake(75, failing))
    assert readme.read_text() == README
    assert bad == [f"notebooks/03_adaptive.ipynb: cell 3: claim: False"] * bool(failing)


def test_seeds_names_notebook_seed_and_cell_of_each_failure():
    bad = notebook_runs.seeds([Path("notebooks/01_sgd.ipynb"), Path("notebooks/03_adaptive.ipynb")],
                              (1, 2), runner=_fake(failing=("03_adaptive",)))
    assert bad == ["notebooks/03_adaptive.ipynb, seed 1: cell 3: claim: False",
                   "notebooks/03_adaptive.ipynb, seed 2: cell 3: claim: False"]


@pytest.mark.slow
def test_a_real_run_reports_a_planted_false_and_an_error_and_saves_nothing(tmp_path):
    path = _write(tmp_path / "planted.ipynb", 'print("fine:", True)',
                  'print("planted:", 1 > 2)', "1 / 0", 'print("never reached: True")')
    before = path.read_text()
    done = notebook_runs.run(path, fast=True, keep=tmp_path / "kept")
    assert done.failures == ("cell 1: planted: False", "cell 2: ZeroDivisionError: division by zero")
    assert path.read_text() == before
    kept = nbformat.read(tmp_path / "kept" / "planted.seed0.ipynb", as_version=4)
    assert kept.cells[1].outputs[0].text == "planted: False\n"


@pytest.mark.slow
def test_a_seeded_run_shifts_the_notebooks_draws_and_keeps_cell_numbers(tmp_path):
    """The kernel draws default_rng(0); under seed 2 that must be what default_rng(2) draws."""
    import numpy as np
    expected = np.random.default_rng(2).integers(10**9)
    path = _write(tmp_path / "draws.ipynb", "import numpy as np",
                  f"print('draws the shifted seed:', np.random.default_rng(0).integers(10**9) == {expected})")
    assert notebook_runs.run(path, fast=True, seed=2).failures == ()
    assert notebook_runs.run(path, fast=True, seed=0).failures == (
        "cell 1: draws the shifted seed: False",)


def test_the_makefile_targets_give_the_command_line_it_parses():
    """`make test-seeds` once passed the paths after `--seeds` (nargs="+"): every path was
    read as a seed and the target stopped before running anything."""
    import shlex
    import subprocess

    shown = subprocess.run(["make", "-n", "test-full", "test-seeds"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout
    commands = [shlex.split(line) for line in shown.splitlines()
                if "tutorial.jupyter.notebook_runs" in line]
    parsed = {}
    for words in commands:
        args = notebook_runs.parser().parse_args(words[words.index("tutorial.jupyter.notebook_runs") + 1:])
        parsed[args.command] = args
    assert set(parsed) == {"full", "seeds"}
    assert parsed["seeds"].seeds == [1, 2, 3]
    assert all(p.endswith(".ipynb") for a in parsed.values() for p in a.paths)
