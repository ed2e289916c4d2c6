"""Where Horovod 0.28.1 can work: this Python, this compiler, and what to tell the learner.

Horovod's last release (0.28.1, June 2023) predates Python 3.14 and GCC 13. Measured in
Debian testing (Python 3.14.8, GCC 16.2; ``make test-debian-testing``): its bundled Gloo
does not compile with GCC 13 or newer (a header uses ``uint8_t`` without ``<cstdint>``),
and a build forced with ``-include cstdint`` crashes at ``import horovod.mxnet``. So on
3.14 set-up leaves Horovod out and says why (:func:`unsupported`), and a failed build
on GCC 13 or newer gets advice for that compiler (:func:`fix_for`), not "install one".

>>> unsupported((3, 13)) is None, unsupported((3, 14)).startswith("Horovod 0.28.1")
(True, True)
>>> "GCC 16" in fix_for(16), fix_for(12) == fix_for(None) == FIX
(True, True)
"""

import os
import subprocess
import sys

FIX = ("Horovod is optional: every notebook but its Horovod cells works without it. To add it, "
       "install a C++ compiler (g++ 7 to 12: apt install build-essential) and Python's "
       "headers (apt install python3-dev), then run `make horovod`; the full log is printed "
       "above. Read README.md, 'Horovod', for the GPU build.")


def compiler_major(cxx=None):
    """The major version of the C++ compiler a build would use (``CXX``, else ``c++``), if
    it is GCC; None for another compiler or none at all."""
    cxx = cxx or os.environ.get("CXX") or "c++"
    try:
        done = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30)
        first = done.stdout.splitlines()[0] if done.returncode == 0 and done.stdout else ""
        if "clang" in first.lower() or not first:
            return None
        major = subprocess.run([cxx, "-dumpversion"], capture_output=True, text=True,
                               timeout=30).stdout.strip().split(".")[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return None
    return int(major) if major.isdigit() else None


def fix_for(gcc_major):
    """The advice printed when the build fails, for this machine's compiler."""
    if gcc_major is not None and gcc_major >= 13:
        return (f"This machine's compiler is GCC {gcc_major}: Horovod 0.28.1's bundled Gloo does "
                f"not compile with GCC 13 or newer (`'uint8_t' does not name a type`: a header "
                f"lacks `#include <cstdint>`). Horovod is optional: every notebook but its "
                f"Horovod cells works without it. To add it, install an older GCC beside it "
                f"(g++-12, where your system packages one) and run `CXX=g++-12 make horovod`.")
    return FIX


def unsupported(python=None):
    """Why Horovod cannot work with this Python (``python``: a version tuple, default this
    one's), or None."""
    python = tuple((python or sys.version_info)[:2])
    if python >= (3, 14):
        return (f"Horovod 0.28.1, its last release (June 2023), does not work on Python "
                f"{python[0]}.{python[1]}: built for Debian testing's Python 3.14 (forced past "
                f"GCC 16 with `-include cstdint`), `import horovod.mxnet` crashed with a "
                f"segmentation fault. Use Python 3.10 to 3.13 for notebook 12's Horovod cells")
    return None
