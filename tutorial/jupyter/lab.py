"""Start JupyterLab on the course: ``make lab`` runs ``python -m tutorial.jupyter.lab``, and
``make slides`` runs ``python -m tutorial.jupyter.lab slides`` for the instructor's deck.

The server listens on 127.0.0.1 only and keeps Jupyter's token authentication on;
``--allow-root`` is added only when running as root (JupyterLab refuses root without it).

Before starting, it signs the notebooks it serves (:func:`trust_notebooks`), with a notary
kept in the environment (``TRUST_DIR``): JupyterLab draws widgets only from trusted
notebooks, so a learner who opens one before running anything sees each widget's last
saved frame (the state ``make execute-notebooks`` stores) instead of ``VBox(children=...)``.

>>> cmd = lab_command("/course/notebooks", is_root=False)
>>> "--ServerApp.ip=127.0.0.1" in cmd and "--allow-root" not in cmd
True
>>> "--allow-root" in lab_command("/course/notebooks", is_root=True)
True
>>> f"--NotebookNotary.data_dir={TRUST_DIR}" in cmd
True
>>> f"--LabServerApp.extra_labextensions_path={LABEXTENSIONS}" in cmd
True

It also writes the course's JupyterLab settings into the environment
(:mod:`tutorial.jupyter.lab_settings`: widget state saved with the notebook, no news prompt) and
serves the notebooks through :mod:`tutorial.jupyter.widget_frames`, which keeps each widget's saved
frame when a notebook is saved without running it. It loads the course's own lab extension
from :data:`LABEXTENSIONS` (``tutorial/jupyter/labextension/tutorial-clean-until-changed``, plain
JavaScript, nothing to build): a notebook nobody changed shows no unsaved dot, which the widget
manager's ``saveState`` would raise on opening. For the deck, the notebook view does not
autosave (:data:`tutorial.jupyter.lab_settings.PRESENTING`): the slideshow beside it is the one
writer while presenting.
"""

import os
import sys
from pathlib import Path

from tutorial.jupyter.lab_settings import (APP_SETTINGS_DIR, PRESENTING, PRESENTING_SETTINGS_DIR,
                                   write_overrides)

ROOT = Path(__file__).resolve().parent.parent.parent
NOTEBOOKS = ROOT / "notebooks"
SLIDES = ROOT / "slides"
# Where this course's JupyterLab keeps its notebook signatures and their secret: in the
# environment, so trusting the course's notebooks writes nothing in the learner's home.
TRUST_DIR = Path(sys.prefix) / "share" / "jupyter" / "tutorial-trust"
PRE_SAVE_HOOK = "tutorial.jupyter.widget_frames.keep_saved_frames"
# The course's prebuilt lab extensions, one folder each (package.json and its script). Given to
# LabServerApp, so JupyterLab and RISE's slideshow (RiseApp, its sibling class) both load them.
LABEXTENSIONS = Path(__file__).resolve().parent / "labextension"


def lab_command(notebook_dir=NOTEBOOKS, port=None, token=None, open_browser=True,
                is_root=None, trust_dir=TRUST_DIR, app_settings_dir=None):
    """The argv that starts JupyterLab on ``notebook_dir``.

    ``token=None`` lets Jupyter draw a random token and print the URL with it; a test
    passes its own token. An empty token is refused: the course never disables it.
    ``app_settings_dir`` replaces the environment's settings directory (a test's own,
    holding :func:`tutorial.jupyter.lab_settings.write_overrides`' file), for JupyterLab (RISE's
    own app reads the environment's only: it has no such option).
    """
    if token is not None and not token:
        raise ValueError("an empty token would disable authentication; pass None for a random one")
    if is_root is None:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    cmd = [sys.executable, "-m", "jupyter", "lab",
           "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.root_dir={notebook_dir}",
           "--ServerApp.open_browser=" + ("True" if open_browser else "False"),
           f"--NotebookNotary.data_dir={trust_dir}",
           f"--ContentsManager.pre_save_hook={PRE_SAVE_HOOK}",
           f"--LabServerApp.extra_labextensions_path={LABEXTENSIONS}"]
    if app_settings_dir is not None:
        cmd.append(f"--LabApp.app_settings_dir={app_settings_dir}")
    if port is not None:
        cmd += [f"--ServerApp.port={port}", "--ServerApp.port_retries=0"]
    if token is not None:
        cmd.append(f"--IdentityProvider.token={token}")
    if is_root:
        cmd.append("--allow-root")
    return cmd


def trust_notebooks(folder, trust_dir=TRUST_DIR):
    """Sign every notebook in ``folder`` with the notary ``lab_command`` gives the server.

    JupyterLab renders a widget (and any HTML or JavaScript output) only from a trusted
    notebook; an untrusted one shows the ``VBox(children=...)`` text until its cell runs.
    The course's notebooks are the course's own code, which ``make`` runs anyway.
    """
    import nbformat
    from nbformat.sign import NotebookNotary

    Path(trust_dir).mkdir(parents=True, exist_ok=True)
    notary = NotebookNotary(data_dir=str(trust_dir))
    for path in sorted(Path(folder).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if not notary.check_signature(nb):
            notary.sign(nb)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    presenting = argv[:1] == ["slides"]
    folder = SLIDES if presenting else NOTEBOOKS
    cmd = lab_command(folder, open_browser=os.environ.get("DISPLAY") is not None
                      or sys.platform in ("darwin", "win32"),
                      app_settings_dir=PRESENTING_SETTINGS_DIR if presenting else None)
    trust_notebooks(folder)
    write_overrides(APP_SETTINGS_DIR)                    # JupyterLab's, and RISE's
    if presenting:                                       # one writer while presenting
        write_overrides(PRESENTING_SETTINGS_DIR, PRESENTING)
    print("Starting JupyterLab on 127.0.0.1; open the URL with the token printed below.",
          flush=True)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
