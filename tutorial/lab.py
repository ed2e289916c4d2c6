"""Start JupyterLab on the course: ``make lab`` runs ``python -m tutorial.lab``, and
``make slides`` runs ``python -m tutorial.lab slides`` for the instructor's deck.

The server listens on 127.0.0.1 only and keeps Jupyter's token authentication on;
``--allow-root`` is added only when running as root (JupyterLab refuses root without it).

>>> cmd = lab_command("/course/notebooks", is_root=False)
>>> "--ServerApp.ip=127.0.0.1" in cmd and "--allow-root" not in cmd
True
>>> "--allow-root" in lab_command("/course/notebooks", is_root=True)
True
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SLIDES = ROOT / "slides"


def lab_command(notebook_dir=NOTEBOOKS, port=None, token=None, open_browser=True,
                is_root=None):
    """The argv that starts JupyterLab on ``notebook_dir``.

    ``token=None`` lets Jupyter draw a random token and print the URL with it; a test
    passes its own token. An empty token is refused: the course never disables it.
    """
    if token is not None and not token:
        raise ValueError("an empty token would disable authentication; pass None for a random one")
    if is_root is None:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    cmd = [sys.executable, "-m", "jupyter", "lab",
           "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.root_dir={notebook_dir}",
           "--ServerApp.open_browser=" + ("True" if open_browser else "False")]
    if port is not None:
        cmd += [f"--ServerApp.port={port}", "--ServerApp.port_retries=0"]
    if token is not None:
        cmd.append(f"--IdentityProvider.token={token}")
    if is_root:
        cmd.append("--allow-root")
    return cmd


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    folder = SLIDES if argv[:1] == ["slides"] else NOTEBOOKS
    cmd = lab_command(folder, open_browser=os.environ.get("DISPLAY") is not None
                      or sys.platform in ("darwin", "win32"))
    print("Starting JupyterLab on 127.0.0.1; open the URL with the token printed below.",
          flush=True)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
