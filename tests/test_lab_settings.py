"""The course's JupyterLab settings reach JupyterLab (tutorial/lab_settings.py): written
where jupyterlab_server reads overrides, and valid against the plugins' own schemas."""

import json
import sys
from pathlib import Path

from jupyterlab_server.settings_utils import _get_overrides

from tutorial.lab_settings import OVERRIDES, write_overrides

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

    for plugin, values in OVERRIDES.items():
        schema = _schema(plugin)
        assert set(values) <= set(schema["properties"]), plugin
        jsonschema.validate(values, schema)
