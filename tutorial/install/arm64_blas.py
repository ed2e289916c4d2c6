"""On arm64, give MXNet's wheel the BLAS it names: Debian's OpenBLAS in place of Arm's.

``mxnet`` 1.9.1's ``manylinux2014_aarch64`` wheel is built against the Arm Performance
Libraries (apache/mxnet#20342): its ``libmxnet.so`` needs ``libarmpl_lp64_mp.so``,
``libamath.so`` and ``libastring.so``, and ``libgomp.so.1``, none of which the wheel
bundles, and ArmPL is on neither PyPI nor Debian (only on Arm's site). What libmxnet.so
takes from them (``ldd -r`` lists it) is standard: CBLAS (``cblas_sgemm``), LAPACK
(``sgesdd_``), LAPACKE (``LAPACKE_sgesdd``) and OpenMP (``GOMP_parallel``); the
``amath``/``astring`` names supply no symbol of their own. So the set-up rewrites the
wheel's list of needed libraries, with the ``patchelf`` the GPU build already uses, to the
distribution's OpenBLAS, LAPACKE and libgomp, which one apt line installs (README,
"Apple Silicon, arm64 Linux and Windows"). An ArmPL that the loader already finds is kept.

The rewrite is data (:func:`rewrite`) applied by :func:`provide`, so the choice is tested on
any machine (``tests/install/test_arm64_blas.py``) and run for real by ``make test-arm64``.

>>> rewrite(["libdl.so.2", "libarmpl_lp64_mp.so", "libamath.so", "libastring.so"])
[('--replace-needed', 'libarmpl_lp64_mp.so', 'libopenblas.so.0'), ('--replace-needed', 'libamath.so', 'liblapacke.so.3'), ('--remove-needed', 'libastring.so')]
"""

import re
import subprocess
from pathlib import Path

ARMPL = ("libarmpl_lp64_mp.so", "libamath.so", "libastring.so")
OPENBLAS, LAPACKE, OPENMP = "libopenblas.so.0", "liblapacke.so.3", "libgomp.so.1"
PACKAGES = ("libopenblas0-openmp", "liblapacke", "libgomp1")     # Debian's and Ubuntu's names
APT = "sudo apt-get install " + " ".join(PACKAGES)
REFUSAL = ("MXNet's arm64 wheel needs a BLAS it does not bundle (Arm Performance Libraries, "
           "or the same functions from OpenBLAS); these are missing here: {missing}. "
           f"On Debian or Ubuntu: {APT}, then run make again.")


def rewrite(needed):
    """The patchelf arguments that turn ``needed`` (libmxnet.so's DT_NEEDED, in order) from
    ArmPL to OpenBLAS + LAPACKE; [] when it names no ArmPL library."""
    if not set(ARMPL) & set(needed):
        return []
    targets = iter((OPENBLAS, LAPACKE))          # two ArmPL names become the two libraries
    steps = []
    for name in (n for n in needed if n in ARMPL):
        target = next(targets, None)
        steps.append(("--replace-needed", name, target) if target else ("--remove-needed", name))
    for target in targets:                       # fewer ArmPL names than libraries
        steps.append(("--add-needed", target))
    return steps


def missing_libraries(ldconfig_text, wanted=(OPENBLAS, LAPACKE, OPENMP)):
    """Which of ``wanted`` the loader's cache (``ldconfig -p``) does not list."""
    listed = set(re.findall(r"^\s*(\S+) \(", ldconfig_text, re.M))
    return [name for name in wanted if name not in listed]


def loader_cache():
    for ldconfig in ("ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"):
        try:
            return subprocess.run([ldconfig, "-p"], capture_output=True, text=True,
                                  check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
    return ""


def needed_of(lib, patchelf):
    return subprocess.run([patchelf, "--print-needed", str(lib)], capture_output=True,
                          text=True, check=True).stdout.split()


def provide(lib, patchelf, armpl_found):
    """Point ``lib`` (libmxnet.so) at OpenBLAS and LAPACKE unless ``armpl_found``; the steps
    it ran. Exits with :data:`REFUSAL` when the distribution's libraries are missing."""
    steps = [] if armpl_found else rewrite(needed_of(lib, patchelf))
    if not steps:
        return []
    missing = missing_libraries(loader_cache())
    if missing:
        raise SystemExit(REFUSAL.format(missing=", ".join(missing)))
    for step in steps:
        print(f"+ patchelf {' '.join(step)} {Path(lib).name}", flush=True)
        subprocess.run([patchelf, *step, str(lib)], check=True)
    return steps
