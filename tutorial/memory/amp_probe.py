"""What MXNet's own mixed precision (``mxnet.contrib.amp``) does on this machine's CPU.

``amp.init(target_dtype=...)`` rewrites MXNet's operators for the whole process, once
and for good, so the probe runs in a subprocess and the caller's MXNet stays as it was.
It builds a two-layer Dense net, runs a forward and a backward pass under
``amp.init(target_dtype="bfloat16")`` and compares the output with float32's on the same
weights. On CPU contexts amp targets bfloat16, which only oneDNN's kernels run, and MXNet
1.9's oneDNN (2.4) has bfloat16 kernels only from AVX-512 up (:func:`bfloat16_kernels`):
with oneDNN switched off (``MXNET_MKLDNN_ENABLED=0``) the bfloat16 Dense layer fails when
its result is read ("Unsupported type 12"), on an AVX2-only CPU (or under
``DNNL_MAX_CPU_ISA=AVX2``) oneDNN finds no kernel ("could not create a primitive
descriptor iterator"). float16 Dense on a CPU is refused (MXNet's message names cuDNN, but
on a GPU it runs through cuBLAS); on GPUs, float16 with ``amp.init_trainer`` and
``amp.scale_loss`` (its dynamic loss scaler is
:class:`tutorial.memory.loss_scaling.DynamicLossScaler`'s rule).

>>> report = probe("float16", timeout=120)        # float16 is for GPUs: refused on a CPU
>>> report.ran, "float16" in report.error
(False, True)
"""

import dataclasses

from tutorial import fresh_process
from tutorial.validate import check_count


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
    net[0].weight.grad().asnumpy()                   # waits: errors surface here, not earlier
    out.update(ran=True, output_dtype=str(y.dtype if target != "bfloat16" else "bfloat16"),
               grad_dtype=str(np.dtype(net[0].weight.grad().dtype)),
               max_rel_diff=float(np.abs(value - reference).max() / np.abs(reference).max()))
except Exception as error:
    out["error"] = str(error).strip().splitlines()[-1][:300] if str(error).strip() else repr(error)
print(json.dumps(out))
"""


GPU_SCRIPT = r"""
import json, sys
import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.contrib import amp
from tutorial.parallel.workload import digits_batches, mlp
amp.init()                                           # float16 where safe, before the net
ctx, steps = mx.gpu(0), int(sys.argv[1])
net = mlp((128, 128), seed=0, ctx=ctx)
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9},
                        update_on_kvstore=False)     # so a step with inf/NaN can be skipped
amp.init_trainer(trainer)                            # attaches the dynamic loss scaler
loss_fn, batches, losses = gluon.loss.SoftmaxCrossEntropyLoss(), digits_batches(64), []
for _ in range(steps):
    X, y = next(batches)
    X, y = nd.array(X, ctx=ctx), nd.array(y, ctx=ctx)
    with autograd.record():
        loss = loss_fn(net(X), y)
        with amp.scale_loss(loss, trainer) as scaled:
            autograd.backward(scaled)
    trainer.step(len(X))
    losses.append(float(loss.mean().asscalar()))
print(json.dumps({"losses": losses, "loss_scale": trainer._amp_loss_scaler.loss_scale}))
"""


def recipe():
    """The lines of :data:`GPU_SCRIPT` that use amp, from ``amp.init()`` to
    ``trainer.step``: what notebook 13 shows is the code that runs on a GPU.

    >>> lines = recipe().splitlines()
    >>> lines[0].startswith("amp.init()"), lines[-1].strip().startswith("trainer.step")
    (True, True)
    """
    lines = GPU_SCRIPT.strip("\n").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("amp.init()"))
    last = next(i for i, line in enumerate(lines) if line.strip().startswith("trainer.step"))
    return "\n".join(lines[first:last + 1])


def gpu_training(steps=20, timeout=600):
    """``steps`` steps of float16 training with amp on ``mx.gpu(0)``, in a fresh process:
    {"losses": [...], "loss_scale": ...}. Only where a GPU is."""
    return fresh_process.run("amp float16 training", script=GPU_SCRIPT,
                             args=[str(check_count("steps", steps))], timeout=timeout,
                             hint="give it more time, e.g. timeout=1200")


def onednn_on(env=None):
    """True when this MXNet has oneDNN (MKLDNN) and ``MXNET_MKLDNN_ENABLED`` does not turn it off."""
    import os

    import mxnet as mx

    value = (os.environ if env is None else env).get("MXNET_MKLDNN_ENABLED", "1")
    return mx.runtime.Features().is_enabled("MKLDNN") and value.strip() != "0"


AVX512_CORE = {"avx512f", "avx512bw", "avx512vl", "avx512dq"}   # /proc/cpuinfo's names


def bfloat16_kernels(env=None, cpuinfo="/proc/cpuinfo"):
    """Whether oneDNN 2.4 (MXNet 1.9.1's) has bfloat16 kernels (Dense, convolution) here:
    only from AVX512_CORE up (emulated there, native with avx512_bf16), so not on AVX2-only
    CPUs (most laptops), not on arm64, and not when ``DNNL_MAX_CPU_ISA`` caps oneDNN below
    AVX-512. Says nothing of whether oneDNN is on (:func:`onednn_on`).

    >>> bfloat16_kernels({"DNNL_MAX_CPU_ISA": "AVX2"})
    False
    """
    import os
    from pathlib import Path

    env = os.environ if env is None else env
    cap = (env.get("DNNL_MAX_CPU_ISA") or "ALL").strip().upper()
    if cap != "ALL" and not cap.startswith("AVX512_CORE"):
        return False
    try:
        lines = Path(cpuinfo).read_text().splitlines()
    except OSError:
        return False
    flags = [set(line.split(":", 1)[1].split()) for line in lines if line.startswith("flags")]
    return bool(flags) and AVX512_CORE <= flags[0]


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
    what = f"the amp probe ({target_dtype})"
    try:
        got = fresh_process.run(what, script=SCRIPT, args=[target_dtype], timeout=timeout)
    except fresh_process.Failed as failed:          # what MXNet refused is the finding
        return AmpReport(target_dtype, False, "", "", float("nan"),
                         str(failed).split(": ", 1)[-1])
    return AmpReport(target_dtype, **got)
