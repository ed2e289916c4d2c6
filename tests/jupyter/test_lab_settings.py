"""The course's JupyterLab settings reach JupyterLab (tutorial/jupyter/lab_settings.py): written
where jupyterlab_server reads overrides, and valid against the plugins' own schemas."""

import json
import sys
from pathlib import Path

from jupyterlab_server.settings_utils import _get_overrides

from tutorial.jupyter.lab_settings import DOCUMENTS, OVERRIDES, PRESENTING, write_overrides

LABEXTENSIONS = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"


def _schema(plugin):
    package, name = plugin.split(":")
    for base in (SCHEMAS / package, LABEXTENSIONS / package / "schemas" / package):
        if (base / f"{name}.json").exists():
            return json.loads((base / f"{name}.json").read_text())
    raise AssertionError(f"no schema for {plugin}")


def test_jupyterlab_server_reads_the_overrides_written(tmp_path):
    path = write_overrides(tmp_path)
    stamp = path.stat().st_mtime_ns
    assert write_overrides(tmp_path) == path and path.stat().st_mtime_ns == stamp
    overrides, error = _get_overrides(str(tmp_path))
    assert error == "" and overrides == OVERRIDES


def test_every_override_is_a_setting_of_its_plugin_with_a_value_it_accepts():
    import jsonschema

    for plugin, values in PRESENTING.items():          # OVERRIDES and one more
        schema = _schema(plugin)
        assert set(values) <= set(schema["properties"]), plugin
        jsonschema.validate(values, schema)


def _started(monkeypatch, tmp_path, argv):
    """What ``python -m tutorial.jupyter.lab *argv`` would exec, and the overrides it wrote, with the
    environment's settings folders moved into ``tmp_path``."""
    import tutorial.jupyter.lab as lab

    monkeypatch.setattr(lab, "APP_SETTINGS_DIR", tmp_path / "app")
    monkeypatch.setattr(lab, "PRESENTING_SETTINGS_DIR", tmp_path / "presenting")
    monkeypatch.setattr(lab, "trust_notebooks", lambda folder: None)
    started = []
    monkeypatch.setattr(lab.os, "execv", lambda path, cmd: started.append(cmd))
    lab.main(argv)
    written = {folder.name: _get_overrides(str(folder))[0] for folder in tmp_path.iterdir()}
    return started[0], written


def test_presenting_the_deck_leaves_the_slideshow_the_only_autosaving_writer(monkeypatch,
                                                                              tmp_path):
    cmd, written = _started(monkeypatch, tmp_path, ["slides"])
    assert f"--LabApp.app_settings_dir={tmp_path / 'presenting'}" in cmd
    assert written["presenting"][DOCUMENTS] == {"autosave": False}     # the notebook view
    assert DOCUMENTS not in written["app"] and written["app"] == OVERRIDES   # RISE reads it


def test_the_course_itself_keeps_jupyterlabs_autosave(monkeypatch, tmp_path):
    cmd, written = _started(monkeypatch, tmp_path, [])
    assert not any(arg.startswith("--LabApp.app_settings_dir") for arg in cmd)
    assert written == {"app": OVERRIDES}
