"""Maintainer tools for the course notebooks: execute them, check them, build them.

    python -m tutorial.jupyter.notebooks execute notebooks/01_sgd.ipynb [...]   # fast mode outputs
    python -m tutorial.jupyter.notebooks check notebooks/*.ipynb                # executed in order?
    python -m tutorial.jupyter.notebooks build draft.py notebooks/01_sgd.ipynb  # from a '# %%' script

In a draft script a cell starts with ``# %%`` (code) or ``# %% [markdown]``; a trailing
``slide``, ``subslide``, ``fragment``, ``skip`` or ``notes`` on that line sets the RISE
slide type of the cell (used by ``slides/``).

``execute`` runs each notebook top to bottom in a fresh kernel in ``notebooks/`` and
stores the outputs: these are the outputs nbval compares (tests/README.md says why).
It refuses to overwrite a notebook that has changes git has not committed, so nothing
a learner wrote is lost; ``--force`` overrides that. A demo cell whose metadata holds
``"tutorial": {"press": true}`` gets its Start pressed once it has run, and the run waited
for (:func:`tutorial.viz.run_buttons.press`, unseen and unnumbered), so the frame stored
with the notebook shows a finished run, not a "ready" widget.
"""

import argparse
import subprocess
import sys
from pathlib import Path


def execution_problems(nb):
    """Why a notebook does not look executed top to bottom ([] when it does)."""
    cells = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    counts = [c.get("execution_count") for c in cells]
    problems = []
    if any(n is None for n in counts):
        problems.append(f"{counts.count(None)} code cell(s) were never executed")
    ran = [n for n in counts if n is not None]
    if ran != sorted(ran) or len(set(ran)) != len(ran):
        problems.append(f"execution counts are out of order: {ran}")
    if ran and ran[0] != 1:
        problems.append(f"the first code cell ran as [{ran[0]}], not [1]: restart and run all")
    errors = [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    if errors:
        problems.append(f"stored outputs contain an error: {errors[0].get('ename')}")
    return problems


def _has_uncommitted_changes(path):
    done = subprocess.run(["git", "status", "--porcelain", "--", str(path)],
                          capture_output=True, text=True, cwd=Path(path).parent)
    return done.returncode == 0 and done.stdout.strip() != "" and \
        not done.stdout.startswith("??")


PRESS_CODE = "from tutorial.viz.run_buttons import press\npress(Out[{count}])"


def presses(cell):
    """Whether ``execute`` presses the Start of the demo this cell shows."""
    return bool(cell.metadata.get("tutorial", {}).get("press"))


def _press_after(client):
    """An ``on_cell_executed`` hook: for a cell that :func:`presses`, run
    :data:`PRESS_CODE` in the kernel as a cell nobody sees (``Out[n]`` is the demo the cell
    showed; not ``_``, which a notebook's ``for _ in ...`` takes over). Its widget messages reach the client, so the state stored is the run's end. A
    cell that failed is not pressed: nbclient reports its error."""
    import nbformat

    async def hook(cell, cell_index, execute_reply):
        if presses(cell) and execute_reply["content"]["status"] == "ok":   # else nbclient
            code = PRESS_CODE.format(count=execute_reply["content"]["execution_count"])
            await client.async_execute_cell(nbformat.v4.new_code_cell(code), cell_index,
                                            store_history=False)
            client.code_cells_executed -= 1      # the stored counts stay 1, 2, 3, ...
    return hook


def execute(path, timeout=1800, force=False):
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    if not force and _has_uncommitted_changes(path):
        print(f"skipped {path}: it has uncommitted changes (commit them, or pass --force)")
        return False
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.on_cell_executed = _press_after(client)
    client.execute()
    nbformat.write(nb, path)
    print(f"executed {path}")
    return True


SLIDE_TYPES = ("slide", "subslide", "fragment", "skip", "notes")


def build(script, target):
    """Write a notebook from a script whose cells start with '# %%' or '# %% [markdown]'."""
    import nbformat

    cells, kind, slide, lines = [], None, None, []

    def flush():
        text = "\n".join(lines).strip("\n")
        if kind == "markdown":
            text = "\n".join(ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in
                             text.splitlines())
            cells.append(nbformat.v4.new_markdown_cell(text))
        elif kind == "code" and text:
            cells.append(nbformat.v4.new_code_cell(text))
        else:
            return
        if slide:
            cells[-1].metadata["slideshow"] = {"slide_type": slide}

    for line in Path(script).read_text().splitlines():
        if line.startswith("# %%"):
            flush()
            words = line[4:].replace("[markdown]", " ").split()
            kind = "markdown" if "[markdown]" in line else "code"
            slide = next((w for w in words if w in SLIDE_TYPES), None)
            lines = []
        else:
            lines.append(line)
    flush()
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, target)
    print(f"built {target} ({len(cells)} cells)")


def main(argv=None):
    import nbformat

    parser = argparse.ArgumentParser(prog="python -m tutorial.jupyter.notebooks")
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("execute")
    ex.add_argument("paths", nargs="+")
    ex.add_argument("--force", action="store_true")
    ch = sub.add_parser("check")
    ch.add_argument("paths", nargs="+")
    bu = sub.add_parser("build")
    bu.add_argument("script")
    bu.add_argument("target")
    args = parser.parse_args(argv)
    if args.command == "execute":
        for p in args.paths:
            execute(p, force=args.force)
    elif args.command == "build":
        build(args.script, args.target)
    else:
        bad = 0
        for p in args.paths:
            for problem in execution_problems(nbformat.read(p, as_version=4)):
                print(f"{p}: {problem}")
                bad += 1
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
