"""The course's lab extensions (``tutorial/jupyter/labextension``) are where ``lab_command`` tells
JupyterLab to look, and JupyterLab finds each one whole there.

JupyterLab's page lists what ``jupyterlab_server`` reads from ``<folder>/<name>/package.json``,
then loads ``<labextensions url>/<name>/<_build.load>`` and asks ``window._JUPYTERLAB[name]``
for the module ``_build.extension``: the folder, the package's name and the name the script
registers must agree, and the script must exist. (tests/browser/test_clean_until_changed_browser.py
checks what the extension does.)
"""

import json

import pytest
from jupyterlab_server.config import get_federated_extensions, get_page_config

from tutorial.jupyter.lab import LABEXTENSIONS, lab_command

OPTION = "--LabServerApp.extra_labextensions_path="
PACKAGES = sorted(p.parent for p in LABEXTENSIONS.glob("*/package.json"))


def test_lab_command_gives_jupyterlab_the_folder():
    paths = [arg.removeprefix(OPTION) for arg in lab_command() if arg.startswith(OPTION)]
    assert paths == [str(LABEXTENSIONS)]
    assert "tutorial-clean-until-changed" in get_federated_extensions(paths)


def test_the_page_lists_every_extension_with_its_script():
    listed = {e["name"]: e for e in get_page_config([str(LABEXTENSIONS)])["federated_extensions"]}
    assert sorted(listed) == sorted(p.name for p in PACKAGES)
    for name, entry in listed.items():
        assert (LABEXTENSIONS / name / entry["load"]).is_file(), (name, entry["load"])


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_package_json_names_what_the_folder_holds(package):
    meta = json.loads((package / "package.json").read_text())
    build = meta["jupyterlab"]["_build"]
    assert meta["name"] == package.name                 # the URL is <name>/<load>
    script = (package / build["load"]).read_text()
    assert f"const NAME = '{meta['name']}';" in script  # window._JUPYTERLAB[NAME]
    assert f"'{build['extension']}'" in script           # the module get() answers
