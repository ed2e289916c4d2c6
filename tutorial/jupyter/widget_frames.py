"""Keep each widget's saved frame when JupyterLab saves a notebook: a server-side save hook.

A widget output in a notebook names a model (``model_id``); its last frame lives in the
notebook's ``metadata.widgets`` (the widget state). With ``saveState`` on
(:mod:`tutorial.jupyter.lab_settings`), JupyterLab's widget manager rewrites that state on every
save, but only with the widgets that have a live kernel connection: a notebook opened and
saved (or autosaved) without running a cell loses every stored frame, and a notebook run
halfway loses those of the cells not run (ipywidgets issue 3888). Reopened, it shows
"Error displaying widget: model not found".

:func:`keep_saved_frames` runs in the Jupyter server before each save
(``ContentsManager.pre_save_hook``, set by :func:`tutorial.jupyter.lab.lab_command`): for every
model an output names that the new state lacks, it copies the model from the file on disk,
with the models it refers to (``IPY_MODEL_<id>``: children, layouts, styles). Frames the
front end did save (the live widgets after a run) are never touched.

>>> old = {"a": {"state": {"children": ["IPY_MODEL_b"]}}, "b": {"state": {}}, "z": {},
...        "l": {"model_name": "LinkModel", "state": {"source": ["IPY_MODEL_b", "value"]}}}
>>> sorted(kept_models({"a", "c"}, {"c": {}}, old))
['a', 'b', 'l']
"""

import json
import re
from pathlib import Path

VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
_REFERENCE = re.compile(r"IPY_MODEL_([0-9a-f]+)")


def shown_models(notebook):
    """The model ids the outputs of a notebook (a dict, as saved) display."""
    return {output["data"][VIEW]["model_id"]
            for cell in notebook.get("cells", []) if cell.get("cell_type") == "code"
            for output in cell.get("outputs", [])
            if VIEW in output.get("data", {}) and "model_id" in output["data"][VIEW]}


def widget_state(notebook):
    """The ``state`` dict of a notebook's saved widget state ({} if it has none)."""
    return notebook.get("metadata", {}).get("widgets", {}).get(STATE, {}).get("state", {})


def _references(model):
    return set(_REFERENCE.findall(json.dumps(model)))


def kept_models(wanted, state, previous):
    """{model id: model} from ``previous`` that ``state`` lacks: the ``wanted`` ids and,
    transitively, every model those refer to; then the models that only refer to these
    (a ``jslink`` between two of them, which no widget refers to)."""
    kept, todo = {}, [m for m in wanted if m not in state]
    while todo:
        model_id = todo.pop()
        if model_id in kept or model_id in state or model_id not in previous:
            continue
        kept[model_id] = previous[model_id]
        todo.extend(_references(previous[model_id]))
    for model_id, model in previous.items():
        refs = _references(model)
        if model_id not in kept and model_id not in state and refs and refs <= set(kept) \
                and model.get("model_name", "").endswith("LinkModel"):
            kept[model_id] = model
    return kept


def with_saved_frames(notebook, previous):
    """Add to ``notebook``'s widget state the models its outputs show that only
    ``previous`` (the same notebook as last saved) holds; returns how many were added."""
    kept = kept_models(shown_models(notebook), widget_state(notebook), widget_state(previous))
    if kept:
        widgets = notebook.setdefault("metadata", {}).setdefault("widgets", {})
        saved = widgets.setdefault(STATE, {"version_major": 2, "version_minor": 0})
        saved.setdefault("state", {}).update(kept)
    return len(kept)


def keep_saved_frames(model, path, contents_manager, **kwargs):
    """``ContentsManager.pre_save_hook``: apply :func:`with_saved_frames` against the file
    being replaced."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    on_disk = Path(contents_manager.root_dir) / path.lstrip("/")
    try:
        previous = json.loads(on_disk.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return                                   # a new file: nothing was saved before
    added = with_saved_frames(model["content"], previous)
    if added:
        contents_manager.log.info("%s: kept the saved state of %d widget model(s)",
                                  path, added)
