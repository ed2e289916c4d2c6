"""What MXNet's own mixed precision (``mxnet.contrib.amp``) does on this machine's CPU.

``amp.init(target_dtype=...)`` rewrites MXNet's operators for the whole process, once
and for good, so the probe runs in a subprocess and the caller's MXNet stays as it was.
It builds a two-layer Dense net, runs a forward and a backward pass under
``amp.init(target_dtype="bfloat16")`` and compares the output with float32's on the same
weights. On CPU contexts amp targets bfloat16 (oneDNN's kernels; float16 Dense needs
cuDNN); on GPUs, float16 with ``amp.init_trainer`` and ``amp.scale_loss`` (its dynamic
loss scaler is :class:`tutorial.memory.loss_scaling.DynamicLossScaler`'s rule).

>>> report = probe("float16", timeout=120)        # float16 is for GPUs: refused on a CPU
>>> report.ran, "float16" in report.error
(False, True)
"""

import dataclasses
import json
import subprocess
import sys

SCRIPT = r"""
import json, sys
import numpy as np
import mxnet as mx
from mxnet import autograd, gluon, nd
target = sys.argv[1]
out = {"ran": False, "output_dtype": "", "grad_dtype": "", "max_rel_diff": float("nan"), "error": ""}
def net_with(seed):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(64, in_units=64, activation="relu"), gluon.nn.Dense(10, in_units=64))
    rng = np.random.default_rng(seed)
    net.initialize()
    for p in net.collect_params().values():
        p.set_data(nd.array(rng.normal(scale=0.1, size=p.shape)))
    return net
x = nd.array(np.random.default_rng(1).normal(size=(32, 64)))
reference = net_with(0)(x).asnumpy()
try:
    from mxnet.contrib import amp
    amp.init(target_dtype=target)
    net = net_with(0)
    with autograd.record():
        y = net(x)
        loss = y.astype("float32").sum()
    loss.backward()
    value = nd.amp_cast(y, dtype="float32").asnumpy() if target == "bfloat16" else y.asnumpy()
    out.update(ran=True, output_dtype=str(y.dtype if target != "bfloat16" else "bfloat16"),
               grad_dtype=str(np.dtype(net[0].weight.grad().dtype)),
               max_rel_diff=float(np.abs(value - reference).max() / np.abs(reference).max()))
except Exception as error:
    out["error"] = str(error).strip().splitlines()[-1][:300] if str(error).strip() else repr(error)
print(json.dumps(out))
"""


@dataclasses.dataclass(frozen=True)
class AmpReport:
    target_dtype: str
    ran: bool                 # did a forward and a backward pass run?
    output_dtype: str         # dtype of the net's output under amp
    grad_dtype: str           # dtype of the weights' gradients (master weights stay float32)
    max_rel_diff: float       # max |amp output - float32 output| / max |float32 output|
    error: str                # the last line of the error when it did not run


def probe(target_dtype="bfloat16", timeout=300):
    """Run the probe in a fresh Python process; an :class:`AmpReport` of what happened."""
    if target_dtype not in ("bfloat16", "float16"):
        raise ValueError(f"target_dtype must be 'bfloat16' or 'float16', got {target_dtype!r}")
    done = subprocess.run([sys.executable, "-c", SCRIPT, target_dtype], capture_output=True,
                          text=True, timeout=timeout)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return AmpReport(target_dtype, False, "", "", float("nan"), tail[:300])
    return AmpReport(target_dtype, **json.loads(lines[-1]))
