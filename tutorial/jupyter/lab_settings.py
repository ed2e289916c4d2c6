"""The JupyterLab settings the course's JupyterLab runs with, written into the environment.

JupyterLab reads defaults that override its plugins' own from
``<app settings dir>/overrides.d/*.json`` (jupyterlab_server); ``python -m tutorial.jupyter.lab``
(``make lab``, ``make slides``, the conda route) writes :data:`OVERRIDES` there before it
starts, into the environment (``share/jupyter/lab/settings``), so the learner's own
settings file and home stay untouched, and a learner can still change either setting in
JupyterLab's Settings menu.

- The widget manager saves the live widgets' state into the notebook when it is saved
  (``saveState``). Without it, JupyterLab leaves ``metadata.widgets`` as it was loaded: after
  Run All and a save (or RISE's autosave), every widget output names a model the file does
  not hold, so reopening shows "Error displaying widget: model not found" and
  ``make slides-html`` shows ``VBox(children=...)``. Its flaw (it keeps only widgets with a
  live kernel connection, so saving a notebook opened without running drops the frames that
  were stored) is mended on the server side by :mod:`tutorial.jupyter.widget_frames`.
- No news prompt ("Would you like to receive official Jupyter news?") over the slides, and
  no check for JupyterLab updates: the course pins its versions.
- **Presenting** (``make slides``, :data:`PRESENTING`): the notebook view does not autosave.
  RISE's slideshow is a second JupyterLab core in an iframe with its own copy of the deck;
  both autosave every two minutes, so after two minutes of a talk the notebook view (dirty
  once a cell runs there; on opening too, before the course's lab extension in
  :mod:`tutorial.jupyter.lab`) wrote the deck, and the slideshow's next save
  met "File Changed ... overwrite or revert?" mid-talk (jupyterlab-contrib/rise#68). With
  one writer, the slideshow keeps its autosave and its Ctrl+S; the notebook view saves on
  Ctrl+S only. RISE reads :data:`APP_SETTINGS_DIR` (it has no option for another), so the
  notebook view's JupyterLab gets :data:`PRESENTING_SETTINGS_DIR`.

>>> OVERRIDES[WIDGETS]["saveState"], OVERRIDES[NOTIFICATIONS]["fetchNews"]
(True, 'false')
>>> PRESENTING[DOCUMENTS], PRESENTING[WIDGETS] == OVERRIDES[WIDGETS]
({'autosave': False}, True)
"""

import json
import sys
from pathlib import Path

WIDGETS = "@jupyter-widgets/jupyterlab-manager:plugin"
NOTIFICATIONS = "@jupyterlab/apputils-extension:notification"
DOCUMENTS = "@jupyterlab/docmanager-extension:plugin"
OVERRIDES = {
    WIDGETS: {"saveState": True},
    NOTIFICATIONS: {"fetchNews": "false", "checkForUpdates": False},
}
PRESENTING = {**OVERRIDES, DOCUMENTS: {"autosave": False}}    # the deck's notebook view
# JupyterLab's application settings directory in this environment (LabApp.app_settings_dir),
# which RISE's app reads too, and the one the presenting JupyterLab gets instead.
APP_SETTINGS_DIR = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings"
PRESENTING_SETTINGS_DIR = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings-presenting"
FILE_NAME = "mxnet-course.json"


def write_overrides(app_settings_dir=APP_SETTINGS_DIR, overrides=None):
    """Write ``overrides`` (default :data:`OVERRIDES`) to ``app_settings_dir/overrides.d/``;
    returns the file's path.

    A file of its own in ``overrides.d`` (not ``overrides.json``, which belongs to the
    user), rewritten only when its content differs.
    """
    path = Path(app_settings_dir) / "overrides.d" / FILE_NAME
    overrides = OVERRIDES if overrides is None else overrides
    text = json.dumps(overrides, indent=2, sort_keys=True) + "\n"
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path
