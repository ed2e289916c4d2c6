"""Which devices a notebook trains on, and why.

On a GPU instance the course uses every GPU on which MXNet can *really* run a kernel.
Finding a GPU is not enough: the PyPI wheel ``mxnet-cu117`` 1.9.1 carries kernels for
compute capabilities 5.0 to 8.6 and no PTX, so on an H100 or H200 (9.0) the first
operation fails. We probe each GPU with a tiny computation in a child process (a CUDA
failure can abort the process that hits it) and report the reason when it fails.
Each probe starts a Python that imports MXNet (seconds), so a process probes once and
reuses the report: every trainer, dashboard run and ``GluonDataParallel`` after the first
asks the cache (``gpu_report(refresh=True)`` probes again, e.g. after a driver change).

Without a usable GPU, ``virtual_devices(n)`` returns n CPU contexts that stand in for
GPUs: every data-parallel cell runs unchanged, but the timings show the overhead of
splitting and aggregating, not a speed-up.

>>> virtual_devices(2)
[cpu(0), cpu(1)]
>>> describe(virtual_devices(4))
'4 virtual devices on CPU: timings show overhead, not speed-up'
"""

import dataclasses
import functools
import shutil
import subprocess
import sys

import mxnet as mx

from tutorial.validate import check_count

WHEEL_MAX_CAPABILITY = (8, 6)   # newest architecture in the mxnet-cu117 1.9.1 wheel
_PROBE = ("import mxnet as mx, sys; i = int(sys.argv[1]); "
          "x = (mx.nd.ones((4,), ctx=mx.gpu(i)) * 2).asnumpy(); "
          "assert float(x.sum()) == 8.0, x")


@dataclasses.dataclass(frozen=True)
class GpuStatus:
    """What we found out about one physical GPU."""
    index: int
    name: str
    capability: str   # e.g. '9.0', or '?' when the driver does not say
    usable: bool
    reason: str       # why it is not used ('' when usable)


def _nvidia_smi_gpus():
    """(index, name, capability) for each GPU the driver sees; [] without a driver."""
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=index,name,compute_cap", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30, check=True).stdout
    except (subprocess.SubprocessError, OSError):
        return []
    gpus = []
    for line in out.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 2 and parts[0].isdigit():
            gpus.append((int(parts[0]), parts[1], parts[2] if len(parts) > 2 else "?"))
    return gpus


def _capability_reason(capability):
    try:
        major, minor = (int(p) for p in capability.split("."))
    except ValueError:
        return ""
    if (major, minor) > WHEEL_MAX_CAPABILITY:
        return (f"compute capability {capability} is newer than the mxnet-cu117 1.9.1 wheel "
                f"supports (kernels for sm_50 to sm_86, no PTX)")
    return ""


def _probe(index, timeout=120):
    """'' if MXNet computes correctly on gpu(index), else the reason it does not."""
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, str(index)],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"a 4-element computation on gpu({index}) did not finish in {timeout} s"
    if done.returncode == 0:
        return ""
    lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else f"exit code {done.returncode}"
    return f"MXNet could not run a kernel on gpu({index}): {last[:300]}"


def gpu_report(refresh=False):
    """A :class:`GpuStatus` for every GPU the driver or MXNet knows of.

    Probed once per process; ``refresh=True`` forgets the cached report and probes again.
    """
    if refresh:
        _probed_report.cache_clear()
    return list(_probed_report())


@functools.lru_cache(maxsize=1)
def _probed_report():
    """The probe itself (one child process per GPU), run once and cached: a tuple."""
    driver = {i: (name, cap) for i, name, cap in _nvidia_smi_gpus()}
    mx_count = mx.context.num_gpus()
    report = []
    for i in sorted(set(driver) | set(range(mx_count))):
        name, cap = driver.get(i, ("unknown GPU", "?"))
        if mx_count == 0:
            reason = ("this MXNet build is CPU-only; for NVIDIA GPUs up to sm_86 install "
                      "mxnet-cu117 (see README, 'GPU notes')")
        elif i >= mx_count:
            reason = f"MXNet sees only {mx_count} GPU(s)"
        else:
            reason = _probe(i)
            if reason and _capability_reason(cap):
                reason = _capability_reason(cap) + "; " + reason
        report.append(GpuStatus(i, name, cap, not reason, reason))
    return tuple(report)


def try_all_gpus():
    """Every GPU on which MXNet really runs a kernel, as ``mx.gpu(i)`` contexts."""
    return [mx.gpu(s.index) for s in gpu_report() if s.usable]


def virtual_devices(n):
    """``n`` CPU contexts standing in for ``n`` GPUs (they share this machine's cores)."""
    n = check_count("n", n, what="virtual devices, e.g. virtual_devices(2)")
    return [mx.cpu(i) for i in range(n)]


def training_devices(n=None, gpus=None):
    """``n`` devices to train on: usable GPUs if there are enough, else n virtual ones.

    ``n=None`` takes every usable GPU, or 2 virtual devices when there is none. Asking
    for more GPUs than the machine has is an error that says what to do instead.
    """
    if n is not None:
        n = check_count("n", n, what="devices to train on; n=None takes every usable GPU")
    gpus = try_all_gpus() if gpus is None else gpus
    if not gpus:
        return virtual_devices(2 if n is None else n)
    if n is None:
        return list(gpus)
    if n > len(gpus):
        raise ValueError(
            f"asked for {n} devices but this machine has {len(gpus)} usable GPU(s) "
            f"({', '.join(map(str, gpus))}). Use n <= {len(gpus)}, or "
            f"tutorial.devices.virtual_devices({n}) to simulate {n} devices on the CPU.")
    return list(gpus[:n])


def check_devices(devices):
    """The contexts as a list; a ValueError that names the fix if any cannot be used."""
    if isinstance(devices, mx.Context):
        devices = [devices]
    if isinstance(devices, (int, str)) or not hasattr(devices, "__iter__"):
        raise ValueError(f"devices must be a list of MXNet contexts, got {devices!r}: use "
                         f"tutorial.devices.training_devices(n) for n devices")
    devices = list(devices)
    if not devices:
        raise ValueError("no devices given: use tutorial.devices.training_devices()")
    strangers = [d for d in devices if not isinstance(d, mx.Context)]
    if strangers:
        raise ValueError(f"{strangers[0]!r} is not an MXNet context: give contexts such as "
                         f"mx.cpu(0) or mx.gpu(0), or use tutorial.devices.training_devices(n)")
    gpu_ids = [d.device_id for d in devices if d.device_type == "gpu"]
    if gpu_ids:
        usable = {c.device_id for c in try_all_gpus()}
        missing = [i for i in gpu_ids if i not in usable]
        if missing:
            raise ValueError(
                f"gpu({missing[0]}) cannot be used here: usable GPUs are "
                f"{sorted(usable) or 'none'}. Call tutorial.devices.training_devices(n) to pick "
                f"devices that exist (it falls back to CPU contexts).")
    if len(set(devices)) != len(devices):
        raise ValueError(f"devices repeat in {devices}: give each context once")
    return devices


def describe(devices):
    """One line a notebook prints about the devices it trains on."""
    n = len(devices)
    if all(d.device_type == "gpu" for d in devices):
        return f"{n} GPU{'s' if n > 1 else ''}: " + ", ".join(map(str, devices))
    if n == 1:
        return "1 device: the CPU"
    return f"{n} virtual devices on CPU: timings show overhead, not speed-up"
