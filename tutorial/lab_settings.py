"""The JupyterLab settings the course's JupyterLab runs with, written into the environment.

JupyterLab reads defaults that override its plugins' own from
``<app settings dir>/overrides.d/*.json`` (jupyterlab_server); ``python -m tutorial.lab``
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
  were stored) is mended on the server side by :mod:`tutorial.widget_frames`.
- No news prompt ("Would you like to receive official Jupyter news?") over the slides, and
  no check for JupyterLab updates: the course pins its versions.

>>> OVERRIDES[WIDGETS]["saveState"], OVERRIDES[NOTIFICATIONS]["fetchNews"]
(True, 'false')
"""

import json
import sys
from pathlib import Path

WIDGETS = "@jupyter-widgets/jupyterlab-manager:plugin"
NOTIFICATIONS = "@jupyterlab/apputils-extension:notification"
OVERRIDES = {
    WIDGETS: {"saveState": True},
    NOTIFICATIONS: {"fetchNews": "false", "checkForUpdates": False},
}
# JupyterLab's application settings directory in this environment (LabApp.app_settings_dir).
APP_SETTINGS_DIR = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings"
FILE_NAME = "mxnet-course.json"


def write_overrides(app_settings_dir=APP_SETTINGS_DIR):
    """Write :data:`OVERRIDES` to ``app_settings_dir/overrides.d/``; returns the file's path.

    A file of its own in ``overrides.d`` (not ``overrides.json``, which belongs to the
    user), rewritten only when its content differs.
    """
    path = Path(app_settings_dir) / "overrides.d" / FILE_NAME
    text = json.dumps(OVERRIDES, indent=2, sort_keys=True) + "\n"
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path
