"""The save hook keeps the frames a save would drop, and never replaces a frame the front
end saved (tutorial/jupyter/widget_frames.py). Reference: the committed notebooks themselves, whose
outputs each name a model their saved state holds."""

import json
import logging
import types

from tutorial.jupyter.lab import NOTEBOOKS, PRE_SAVE_HOOK, lab_command
from tutorial.jupyter.widget_frames import (STATE, keep_saved_frames, shown_models, widget_state,
                                    with_saved_frames)

COMMITTED = NOTEBOOKS / "02_momentum.ipynb"


def _without_state(nb):
    """What JupyterLab's widget manager saves for a notebook opened but not run: the live
    widgets' state, of which there are none."""
    copy = json.loads(json.dumps(nb))
    copy["metadata"]["widgets"] = {STATE: {"version_major": 2, "version_minor": 0,
                                           "state": {}}}
    return copy


def _closed(state, ids):
    """True when every IPY_MODEL_ reference in the models ``ids`` names a model in state."""
    import re
    refs = set(re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps([state[i] for i in ids])))
    return refs <= set(state)


def test_a_save_without_running_keeps_every_shown_frame():
    committed = json.loads(COMMITTED.read_text())
    shown = shown_models(committed)
    assert shown and shown <= set(widget_state(committed))       # the committed form
    saved = _without_state(committed)
    assert with_saved_frames(saved, committed) > len(shown)      # with their children
    assert shown <= set(widget_state(saved)) and _closed(widget_state(saved), shown)


def test_frames_the_front_end_saved_are_kept_as_saved():
    committed = json.loads(COMMITTED.read_text())
    saved = json.loads(json.dumps(committed))
    model_id = sorted(shown_models(saved))[0]
    widget_state(saved)[model_id] = {"state": {"value": "fresh"}}
    before = json.dumps(widget_state(saved), sort_keys=True)
    assert with_saved_frames(saved, committed) == 0
    assert json.dumps(widget_state(saved), sort_keys=True) == before


def test_the_hook_reads_the_file_it_replaces_and_runs_in_every_course_server(tmp_path):
    committed = json.loads(COMMITTED.read_text())
    (tmp_path / "n.ipynb").write_text(json.dumps(committed))
    manager = types.SimpleNamespace(root_dir=str(tmp_path), log=logging.getLogger("test"))
    model = {"type": "notebook", "content": _without_state(committed)}
    keep_saved_frames(model, "n.ipynb", manager)
    assert shown_models(committed) <= set(widget_state(model["content"]))
    keep_saved_frames({"type": "notebook", "content": {}}, "new.ipynb", manager)  # no file
    assert f"--ContentsManager.pre_save_hook={PRE_SAVE_HOOK}" in lab_command()


def test_saving_any_committed_notebook_unrun_keeps_its_whole_saved_state():
    """JupyterLab marks a notebook with saved widgets as changed on opening (its widget
    manager registers the saved models), so its autosave comes; it must not lose a model."""
    from tutorial.jupyter.lab import SLIDES

    for path in [*sorted(NOTEBOOKS.glob("*.ipynb")), SLIDES / "workshop.ipynb"]:
        committed = json.loads(path.read_text())
        saved = _without_state(committed) if widget_state(committed) else committed
        with_saved_frames(saved, committed)
        assert widget_state(saved) == widget_state(committed), path.name
