"""The README's course map: its "full size" column and the paragraph that says where it was measured.

``make test-full`` runs every notebook at full size (:mod:`tutorial.jupyter.notebook_runs`) and
writes each one's wall time into the map with :func:`rewrite`, so the times a learner
reads are those of the last full run and not of a memory.

>>> duration(6.4), duration(152.2), duration(180)
('6 s', '2 min 32 s', '3 min')
>>> row = "| 01 | `01_sgd` | gradient descent | 39 s | ✅ |"
>>> rewrite(row, {"01_sgd": 41.0})
'| 01 | `01_sgd` | gradient descent | 41 s | ✅ |'
"""

import os
import platform
import re
import shutil
import subprocess

# | 01 | `01_sgd` | what you learn | 39 s | ✅ |
ROW = re.compile(r"^(\| \d\d \| `(?P<name>\w+)` \| .*? \| )(?P<time>[^|]*?)( \| [^|]* \|)$", re.M)
# The paragraph under the map, from its first words to the blank line after it.
MEASURED = re.compile(r'^"Full size" is the wall time.*?(?=\n\n)', re.M | re.S)


def duration(seconds):
    """Wall time as the course map writes it: '6 s', '2 min 32 s', '3 min'."""
    whole = int(round(seconds))
    minutes, rest = divmod(whole, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def times(text):
    """``{notebook name: its full-size time as written}`` from the course map in ``text``."""
    return {m["name"]: m["time"] for m in ROW.finditer(text)}


def rewrite(text, seconds, measured=None):
    """``text`` with the times of the notebooks in ``seconds`` replaced (others kept).

    ``measured`` replaces the paragraph under the map that starts '"Full size" is the
    wall time' (kept when None).
    """
    def row(m):
        if m["name"] not in seconds:
            return m.group(0)
        return f"{m.group(1)}{duration(seconds[m['name']])}{m.group(4)}"

    text = ROW.sub(row, text)
    if measured is not None:
        text, count = MEASURED.subn(lambda _: measured, text, count=1)
        if not count:
            raise ValueError('no paragraph starting \'"Full size" is the wall time\' '
                             "under the course map")
    return text


def machine():
    """'a 2-core AMD EPYC 7B13 with no GPU (CPU contexts stand in)', for this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            names = [ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    gpus = 0
    if shutil.which("nvidia-smi"):
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
        gpus = listed.stdout.count("GPU ") if listed.returncode == 0 else 0
    gpu = f"{gpus} GPU(s)" if gpus else "no GPU (CPU contexts stand in)"
    return f"a {os.cpu_count()}-core {cpu} with {gpu}"


def measured_paragraph(date, where, extra=""):
    """The paragraph under the map: what the times are, on which machine, when and how."""
    return ('"Full size" is the wall time of a whole notebook without `TUTORIAL_FAST`, '
            "kernel start included,\n"
            f"on {where}, measured on {date} by `make test-full`\n"
            "(every notebook in a fresh kernel, one after another, no output saved)"
            f"{extra}.")
