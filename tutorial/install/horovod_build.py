"""Build Horovod once for the course's MXNet, keep the wheel, and install it from there.

``make lab`` and ``make test`` run ``python -m tutorial.install.horovod_build install cpu`` (or
``gpu``) after the course is installed; ``make horovod`` runs it again by hand. Horovod
0.28.1 has no wheel on PyPI: pip builds it from source against the MXNet in this
environment (about 3 CPU-minutes), with

    HOROVOD_WITH_MXNET=1 HOROVOD_WITH_GLOO=1 HOROVOD_WITHOUT_MPI=1
    HOROVOD_WITHOUT_TENSORFLOW=1 HOROVOD_WITHOUT_PYTORCH=1
    pip wheel --no-build-isolation --no-deps horovod==0.28.1

once ``cmake`` and ``wheel`` (pinned in pyproject.toml, ``[tool.tutorial.horovod]``) are
in the environment. The wheel goes to a cache outside ``.venv``,
``~/.cache/tutorial/wheels/<key>/`` (``TUTORIAL_WHEEL_CACHE`` or ``XDG_CACHE_HOME`` move
it), where the key names Horovod's version, the MXNet build it was compiled against and
the Python tag and the machine (x86_64, aarch64: one home folder may serve both, as in a
container): a second set-up, also after ``rm -rf .venv``, installs that wheel in
seconds, and a switch to the GPU build (``mxnet-cu117``) builds its own.

The GPU build adds ``HOROVOD_GPU_OPERATIONS=NCCL``, so that gradients are summed between
GPUs by NCCL; it also needs CUDA's ``nvcc`` and NCCL's headers on the machine (untested
here: the course's machines have no GPU).

If the build fails, set-up goes on without Horovod: this prints why and how to fix it,
and the Horovod cells and tests print the same advice (``horovod_problem()``).

>>> cache_key("0.28.1", "mxnet", "1.9.1", "cp311", "x86_64")
'horovod-0.28.1_mxnet-1.9.1_cp311_x86_64'
>>> next_action(installed=None, wanted="horovod-0.28.1_mxnet-1.9.1_cp311_x86_64", wheel=None)
'build'
"""

import argparse
import importlib.metadata
import os
import platform
import subprocess
import sys
from pathlib import Path

from tutorial.install.mxnet_build import CPU_DIST, GPU_DIST, wanted_build
from tutorial.install.pins import ROOT, toml_array
from tutorial.install.horovod_support import compiler_major, fix_for, unsupported
from tutorial.install.wheel_cache import build_into, cache_root

BUILD_ENV = {"HOROVOD_WITH_MXNET": "1", "HOROVOD_WITH_GLOO": "1", "HOROVOD_WITHOUT_MPI": "1",
             "HOROVOD_WITHOUT_TENSORFLOW": "1", "HOROVOD_WITHOUT_PYTORCH": "1"}
GPU_BUILD_ENV = {"HOROVOD_GPU_OPERATIONS": "NCCL"}
MARKER = ".horovod-build"      # in the environment's folder: the key of the installed wheel


def pins(pyproject=ROOT / "pyproject.toml"):
    """(horovod requirement, [build requirements]) from ``[tool.tutorial.horovod]``."""
    text = Path(pyproject).read_text()
    return (toml_array(text, "tool.tutorial.horovod", "requires")[0],
            toml_array(text, "tool.tutorial.horovod", "build"))


def build_env(build):
    """The HOROVOD_* variables for the 'cpu' or 'gpu' build of MXNet."""
    if build not in ("cpu", "gpu"):
        raise ValueError(f"build must be 'cpu' or 'gpu', got {build!r}")
    return dict(BUILD_ENV, **(GPU_BUILD_ENV if build == "gpu" else {}))


def cache_key(horovod, mxnet_dist, mxnet_version, python_tag, machine):
    """One folder per (Horovod, MXNet build, Python, machine): a wheel is valid for those only."""
    return f"horovod-{horovod}_{mxnet_dist}-{mxnet_version}_{python_tag}_{machine}"


def version_of(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def this_key(horovod_version):
    """The cache key for this environment's MXNet, Python and machine."""
    dist = GPU_DIST if version_of(GPU_DIST) else CPU_DIST
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return cache_key(horovod_version, dist, version_of(dist), tag, platform.machine())


def cached_wheel(folder):
    """The Horovod wheel in ``folder``, or None."""
    found = sorted(Path(folder).glob("horovod-*.whl"))
    return found[-1] if found else None


def installed_key(prefix=None):
    """The cache key of the Horovod installed in this environment (None: none, or unknown)."""
    if version_of("horovod") is None:
        return None
    marker = Path(sys.prefix if prefix is None else prefix) / MARKER
    return marker.read_text().strip() if marker.is_file() else None


def next_action(installed, wanted, wheel):
    """'done' (Horovod built for this MXNet and Python is installed), 'install' (from the
    cached wheel) or 'build'. Keys, not versions: after a switch from the CPU to the GPU
    build of MXNet the installed Horovod has the right version but the wrong library."""
    if installed == wanted:
        return "done"
    return "install" if wheel is not None else "build"


def _pip(*args, env=None):
    print("+ pip " + " ".join(map(str, args)), flush=True)
    return subprocess.run([sys.executable, "-m", "pip", *map(str, args)], cwd=ROOT,
                          env=env).returncode


def build_wheel(requirement, build_requires, build, folder):
    """Build ``requirement`` into ``folder`` (made only when the build succeeds); True if so."""
    if _pip("install", "--quiet", *build_requires) != 0:
        return False
    env = dict(os.environ, **build_env(build))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # --no-cache-dir (in build_into): pip's own wheel cache is keyed by the download alone, so
    # it would hand a CPU build back to a GPU set-up; the folder keyed by MXNet build and
    # Python is the cache.
    return build_into(folder, ["--no-build-isolation", requirement], env=env, pip=_pip)


def install(build, cache=None, prefix=None):
    """Install Horovod from the cache, building it first if needed; True when it works.

    ``cache``: the wheel cache (default :func:`cache_root`); ``prefix``: the environment's
    folder, where the installed key is noted (default ``sys.prefix``). Never raises for a
    failed build: prints why and the fix, and returns False.
    """
    why = unsupported()
    if why:
        skip(prefix, why)
        return False
    requirement, build_requires = pins()
    wanted = requirement.split("==")[1]
    key = this_key(wanted)
    folder = (cache_root() if cache is None else Path(cache)) / key
    prefix = Path(sys.prefix if prefix is None else prefix)
    action = next_action(installed_key(prefix), key, cached_wheel(folder))
    if action == "done":
        print(f"Horovod: {key} is installed", flush=True)
    if action == "build":
        print(f"Horovod {wanted}: building it against this MXNet, once (about 3 CPU-minutes); "
              f"the wheel is kept in {folder}", flush=True)
        if not build_wheel(requirement, build_requires, build, folder):
            return _give_up("pip could not build it")
        action = "install"
    if action == "install":
        if _pip("install", "--quiet", "--force-reinstall", "--no-deps", cached_wheel(folder)) \
                or _pip("install", "--quiet", cached_wheel(folder)):     # then its dependencies
            return _give_up(f"pip could not install {cached_wheel(folder)}")
        (prefix / MARKER).write_text(key + "\n")
    problem = horovod_problem()
    return _give_up(problem) if problem else True


def _give_up(why):
    print(f"\nHorovod was NOT installed: {why}. {fix_for(compiler_major())}\n", flush=True)
    return False


SKIPPED = "skipped"     # the marker's text when set-up left Horovod out on request (HOROVOD=0)
UNSUPPORTED = "unsupported"     # ... when Horovod cannot work with this Python


def skip(prefix=None, why=None):
    """Leave Horovod out of this environment, on request (``make ... HOROVOD=0``) or because
    of ``why`` (:func:`unsupported`), and note it: its tests and notebook cells then skip,
    saying so, also under CI (the other interpreters' unit runs do this)."""
    (Path(sys.prefix if prefix is None else prefix) / MARKER).write_text(
        (UNSUPPORTED if why else SKIPPED) + "\n")
    print(f"Horovod: left out, {why}" if why else
          "Horovod: left out on request (HOROVOD=0); `make horovod` adds it", flush=True)


def left_out(prefix=None):
    """Why set-up left Horovod out of this environment on purpose (a sentence), or None: it
    was not left out, or it is installed since."""
    marker = Path(sys.prefix if prefix is None else prefix) / MARKER
    if version_of("horovod") is not None or not marker.is_file():
        return None
    text = marker.read_text().strip()
    if text == SKIPPED:
        return "this environment was set up without Horovod on request (HOROVOD=0)"
    if text == UNSUPPORTED:
        return unsupported() or "set-up found Horovod unsupported here"
    return None


def skipped_on_request(prefix=None):
    """True when set-up left Horovod out on request and it is not installed."""
    marker = Path(sys.prefix if prefix is None else prefix) / MARKER
    return (version_of("horovod") is None and marker.is_file()
            and marker.read_text().strip() == SKIPPED)


def horovod_problem():
    """None when ``import horovod.mxnet`` works in a fresh Python here, else why and the fix."""
    done = subprocess.run([sys.executable, "-c", "import horovod.mxnet"], capture_output=True,
                          text=True)
    if done.returncode == 0:
        return None
    lines = (done.stderr.strip() or "no message").splitlines()
    return f"`import horovod.mxnet` fails ({lines[-1]})"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tutorial.install.horovod_build",
                                     description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("install", help="install Horovod, building its wheel once").add_argument(
        "build", choices=["cpu", "gpu", "preinstalled"])
    sub.add_parser("where", help="print the folder of the cached wheel")
    sub.add_parser("skip", help="leave Horovod out of this environment, noting it (HOROVOD=0)")
    args = parser.parse_args(argv)
    if args.command == "where":
        print(cache_root() / this_key(pins()[0].split("==")[1]))
    elif args.command == "skip":
        skip()
    elif args.build == "preinstalled" and horovod_problem() is None:
        print("Horovod: the one installed with MXNet works; keeping it", flush=True)
    else:                          # exit 0 either way: the rest of the course works without
        install(args.build if args.build != "preinstalled" else
                wanted_build()[0])


if __name__ == "__main__":
    main()
