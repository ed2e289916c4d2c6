"""What a notebook's outputs show that must never be shown: a failed check, or an error.

The course prints each claim the prose makes as a check, ``print("claim:", bool)``
(tests/README.md), so a failed one is a line whose value after a colon is ``False``;
a cell whose value is ``False`` alone counts too. An error is an output of type
``error`` (a traceback). :func:`failures` reads the outputs a notebook stores, whether
they come from the committed file (``make test``) or from a run that saves nothing
(``make test-full``, ``make test-seeds``, :mod:`tutorial.jupyter.notebook_runs`).

>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_markdown_cell("says: False"),
...     nbformat.v4.new_code_cell("", outputs=[nbformat.v4.new_output(
...         "stream", name="stdout", text="Adam ends lower: True\\nSGD ends lower: False\\n")]),
...     nbformat.v4.new_code_cell("", outputs=[nbformat.v4.new_output(
...         "error", ename="ValueError", evalue="bad", traceback=[])])])
>>> for failure in failures(nb):
...     print(failure)
cell 1: SGD ends lower: False
cell 2: ValueError: bad
"""

import re

# "statement: False", also followed by more text on the line ("...: False; held [1, 2]")
FAILED_CHECK = re.compile(r":\s*False\b")
TEXT_KEYS = ("text/plain",)


def _texts(output):
    """The text an output shows: a stream, or the plain-text form of a result."""
    if output.get("output_type") == "stream":
        yield output.get("text", "")
    for key in TEXT_KEYS:
        value = output.get("data", {}).get(key)
        if value is not None:
            yield value if isinstance(value, str) else "".join(value)


def failed_check_lines(text):
    """The lines of ``text`` that show a failed check."""
    if text.strip() == "False":
        return ["False"]
    return [line.strip() for line in text.splitlines() if FAILED_CHECK.search(line)]


def failures(nb, first_cell=0):
    """``"cell N: ..."`` for every failed check and error ``nb`` shows.

    Cells count from 0 as in the ``.ipynb`` file; ``first_cell`` is the index the
    notebook's first cell had before a cell was put in front of it (a run under
    ``TUTORIAL_SEED`` inserts one: pass 1 and its cells keep the committed numbers).
    """
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            where = f"cell {index - first_cell}"
            if output.get("output_type") == "error":
                found.append(f"{where}: {output.get('ename')}: {output.get('evalue')}")
            for text in _texts(output):
                found.extend(f"{where}: {line}" for line in failed_check_lines(text))
    return found
