"""Take a learner's exercise function out of their notebook, without running the notebook
and without writing to it.

The notebook file is opened read-only and parsed as JSON. The exercise cell is the code
cell marked ``{"tutorial": {"exercise": name}}`` (or, if the marker was lost, the first
code cell with ``def name``). From it we keep only the definitions (functions and
classes); from the whole notebook, the import lines whose names those definitions use
(found with ``ast``). That code runs first in a forked child killed at the time limit (a
default argument can loop forever inside one C call), then in a fresh namespace here: the
rest of the notebook, and the cell's own statements (the ``print(check_...)`` line),
never run.
Whatever goes wrong raises :class:`Unreadable` with one sentence for the learner.
"""

import ast
import contextlib
import json

from tutorial.check.exercises import METADATA_KEY
from tutorial.check.isolate import can_isolate, in_child
from tutorial.check.limits import TimeLimitExceeded, time_limit

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Unreadable(Exception):
    """Why the exercise could not be taken out of the notebook (one sentence)."""


def read_notebook(path):
    """The notebook at ``path`` as a dict (opened read-only), or :class:`Unreadable`."""
    try:
        with open(path, "rb") as file:
            text = file.read()
    except FileNotFoundError:
        raise Unreadable(f"{path.name} is missing") from None
    except OSError as error:
        raise Unreadable(f"{path.name} cannot be opened ({error.strerror})") from None
    try:
        notebook = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise Unreadable(f"{path.name} is not a valid notebook file ({error})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise Unreadable(f"{path.name} is not a valid notebook file (no list of cells)")
    return notebook


def _source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _python(source):
    """The cell as plain Python (IPython's %magics and !commands turned into calls)."""
    from IPython.core.inputtransformer2 import TransformerManager
    return TransformerManager().transform_cell(source)


def _parse(source):
    try:
        return ast.parse(_python(source))
    except SyntaxError as error:
        raise Unreadable(f"the exercise cell does not parse ({error.msg}, line "
                         f"{error.lineno})") from None


def _defines(tree, function):
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
               and node.name == function for node in tree.body)


def exercise_cell(notebook, function):
    """The source of the exercise cell for ``function``, or :class:`Unreadable`."""
    code = [c for c in notebook["cells"] if isinstance(c, dict) and c.get("cell_type") == "code"]
    for cell in code:
        marker = cell.get("metadata", {}).get(METADATA_KEY, {})
        if isinstance(marker, dict) and marker.get("exercise") == function:
            return _source(cell)
    for cell in code:
        if f"def {function}" in _source(cell):
            return _source(cell)
    raise Unreadable(f"no exercise cell for {function} (a code cell with `def {function}`)")


def _names_used(nodes):
    return {node.id for top in nodes for node in ast.walk(top) if isinstance(node, ast.Name)}


def _bound_name(alias):
    return alias.asname or alias.name.split(".")[0]


def _imports_needed(notebook, used):
    """The notebook's top-level imports, narrowed to the names in ``used``."""
    needed = []
    for cell in notebook["cells"]:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        try:
            body = ast.parse(_python(_source(cell))).body
        except SyntaxError:
            continue                        # another cell's typo is not this exercise's
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a for a in node.names if a.name != "*" and _bound_name(a) in used]
                if names:
                    needed.append(type(node)(**{**node.__dict__, "names": names}))
    return needed


def load_function(path, function, seconds):
    """The learner's ``function`` from the notebook at ``path``, defined afresh."""
    notebook = read_notebook(path)
    tree = _parse(exercise_cell(notebook, function))
    if not _defines(tree, function):
        raise Unreadable(f"the exercise cell no longer has `def {function}`")
    definitions = [node for node in tree.body if isinstance(node, DEFINITIONS)]
    module = ast.Module(body=_imports_needed(notebook, _names_used(definitions)) + definitions,
                        type_ignores=[])
    code = compile(ast.fix_missing_locations(module), f"<{path.stem}: {function}>", "exec")
    if can_isolate():                       # a default argument may loop inside one C call:
        outcome = in_child(lambda: _define(code, function, None) and None, seconds)
        if outcome.kind == "timeout":       # try it where it can be killed first
            raise Unreadable(f"defining {function} did not finish within {seconds:g} s")
        if outcome.kind == "died":
            raise Unreadable(f"defining {function} ended the process ({outcome.detail})")
    return _define(code, function, seconds)


def _define(code, function, seconds):
    namespace = {"__name__": f"exercise_{function}"}
    try:
        with time_limit(seconds) if seconds else contextlib.nullcontext():
            exec(code, namespace)
    except TimeLimitExceeded:
        raise Unreadable(f"defining {function} did not finish within {seconds:g} s") from None
    except Exception as error:              # a failing import or decorator in the cell
        raise Unreadable(f"defining {function} failed with {type(error).__name__}: "
                         f"{error}") from None
    except BaseException as error:          # sys.exit or KeyboardInterrupt in the cell
        raise Unreadable(f"defining {function} raised {type(error).__name__}") from None
    return namespace[function]
