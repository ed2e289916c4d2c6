# %% [markdown]
# # 13 · Memory, part 2 (draft of sections 5 to 7: mixed precision, overlap, roofline)
#
# Draft cells for `notebooks/13_memory.ipynb` (issue 25, items 5 to 7). The first code
# cell holds the imports these sections need: merge it into the notebook's first cell.

# %%
import matplotlib.pyplot as plt
import mxnet as mx
import numpy as np
from mxnet import autograd, gluon

from tutorial import config
from tutorial.devices import describe, try_all_gpus, virtual_devices
from tutorial.memory import amp_probe, roofline
from tutorial.memory import roofline_measure
from tutorial.memory.buckets import summary
from tutorial.memory.loss_scaling import DynamicLossScaler
from tutorial.memory.mixed_precision import gradients, train, train_bytes
from tutorial.memory.overlap import OverlapTrainer, measure
from tutorial.memory.precision import (FLOAT16_SMALLEST, FLOAT16_SMALLEST_NORMAL, round_trip,
                                       underflow)
from tutorial.parallel.step_time import StepTimeModel
from tutorial.parallel.workload import digits_batches, mlp
from tutorial.viz import overlap_timeline, roofline_plot

print(config.banner())
gpus = try_all_gpus()
pair = gpus[:2] if len(gpus) >= 2 else virtual_devices(2)
print(describe(pair))

# %% [markdown]
# ## 5 · Mixed precision: half the bytes, and the gradients that vanish
#
# The workshop deck lists *precision* among what improves SGD. A float16 number takes 2
# bytes instead of 4, so weights, gradients and every message of the allreduce halve. The
# price is range and precision: float16 has a 5-bit exponent, bfloat16 keeps float32's
# 8-bit exponent but only 7 bits of mantissa. What each keeps of a few float32 numbers
# (casts, the same on every machine):

# %%
values = [1e-8, 1e-6, 1e-3, 1.0 + 2 ** -9, 7e4]
print(f"{'float32':>12} {'float16':>12} {'bfloat16':>12}")
for v, h, b in zip(values, round_trip(values, "float16"), round_trip(values, "bfloat16")):
    print(f"{v:12.4g} {h:12.4g} {b:12.4g}")
print(f"float16: smallest number {FLOAT16_SMALLEST:.3g}, smallest normal "
      f"{FLOAT16_SMALLEST_NORMAL:.3g}, largest 65504")

# %% [markdown]
# 1e-8 becomes 0 in float16 and 7e4 becomes inf; bfloat16 keeps both, but rounds
# 1 + 2⁻⁹ to 1. Gradients are small numbers, and they shrink as training converges.
# We train the digits MLP with float32 until its loss is small, then ask what a cast of
# its gradient (of the mean loss over a batch) to float16 would do to it, as it is and
# multiplied by a **loss scale** S = 1024 first:

# %%
# NBVAL_IGNORE_OUTPUT
net = mlp((128, 128), seed=0)
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
sgd = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
batches = digits_batches(64, seed=0)
for step in range(400):
    X, y = next(batches)
    with autograd.record():
        loss = loss_fn(net(mx.nd.array(X)), mx.nd.array(y)).mean()
    loss.backward()
    sgd.step(1)
X, y = next(batches)
grads = gradients(net, X, y)
reports = {S: underflow(grads, scale=S) for S in (1.0, 1024.0)}
print(f"loss after 400 steps: {loss.asscalar():.4f}")
for S, r in reports.items():
    print(f"scale {S:6.0f}: of {r.nonzero} nonzero gradient entries, {r.flushed:.2%} become 0 "
          f"in float16, {r.subnormal:.1%} are below its smallest normal, "
          f"{r.overflowed:.2%} overflow")

# %%
# NBVAL_IGNORE_OUTPUT
flat = np.concatenate([g.ravel() for g in grads])
magnitudes = np.log2(np.abs(flat[flat != 0]))
plt.figure(figsize=(8, 3))
plt.hist(magnitudes, bins=80, color="C0")
for edge, label in ((np.log2(FLOAT16_SMALLEST), "float16: 0 below"),
                    (np.log2(FLOAT16_SMALLEST_NORMAL), "subnormal below"),
                    (np.log2(65504), "inf above")):
    plt.axvline(edge, color="C3", ls="--")
    plt.text(edge, plt.ylim()[1] * 0.9, " " + label, color="C3", fontsize=8)
plt.xlabel("log2 |gradient|")
plt.ylabel("entries")
plt.title("The MLP's gradient after 400 steps, against float16's range")
plt.show()

# %%
flushed, scaled = reports[1.0].flushed, reports[1024.0].flushed
print("some nonzero gradient entries become 0 in float16 (more than 0.5%):", flushed > 0.005)
print("a loss scale of 1024 saves most of them (fewer than a third still vanish):",
      scaled < flushed / 3)
print("and overflows none:", reports[1024.0].overflowed == 0.0)

# %% [markdown]
# ### Loss scaling from scratch, with a dynamic scaler
#
# Backward is linear, so multiplying the loss by S multiplies every gradient by S. The
# optimizer divides by S again, in float32, before it updates **float32 master weights**
# (the float16 copy only stores what the devices compute with and send). Too large an S
# overflows: the step is skipped and S halved; after N good steps in a row S doubles.
# The scaler's steps are data; here N = 3, starting at S = 8, for a made-up sequence of
# finite (T) and overflowing (F) steps:

# %%
scaler = DynamicLossScaler(init_scale=8.0, growth_interval=3)
flags = [True] * 3 + [False] + [True] * 4 + [False, False]
print("step  scale  finite  update   next scale")
for row in scaler.schedule(flags):
    print(f"{row.step:4d} {row.scale:6.0f}  {'T' if row.finite else 'F':>6}  "
          f"{'applied' if row.applied else 'skipped':8} {row.next_scale:6.0f}")

# %% [markdown]
# Now data-parallel training on two devices with it. MXNet 1.9.1 runs float16
# `FullyConnected` only with cuDNN: on a CPU context it raises *"float16 fully connected
# layer is currently only supported by CuDNN version"*. So each device **stores** float16
# (its weights are float16 values, and the gradients it sends are float16) and
# **computes** in float32, the precision that runs. The scaler starts far too high
# (2²⁴) on purpose; float32 training of the same net on the same batches is the reference.

# %%
# NBVAL_IGNORE_OUTPUT
steps = config.pick(full=100, fast=60)
make_net = lambda: mlp((128, 128), seed=0)  # noqa: E731
fp32 = train(make_net, pair, digits_batches(64, seed=0), steps, dtype="float32")
mixed = train(make_net, pair, digits_batches(64, seed=0), steps, dtype="float16",
              scaler=DynamicLossScaler(init_scale=2.0 ** 24, growth_interval=20))
skipped = [i + 1 for i, a in enumerate(mixed.applied) if not a]
print("scale of the first 8 steps:", [f"2^{int(np.log2(s))}" for s in mixed.scales[:8]])
print(f"skipped steps: {skipped}")
tail = steps // 5
print(f"mean loss of the last {tail} steps: float32 {np.mean(fp32.losses[-tail:]):.3f}, "
      f"float16 + loss scaling {np.mean(mixed.losses[-tail:]):.3f}")
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.5))
left.plot(fp32.losses, label="float32")
left.plot(mixed.losses, label="float16 storage, float32 master, dynamic loss scale", alpha=0.8)
left.set_xlabel("step")
left.set_ylabel("training loss")
left.legend(fontsize=8)
right.semilogy(mixed.scales, color="C1", drawstyle="steps-post")
right.plot(np.array(skipped) - 1, [mixed.scales[i - 1] for i in skipped], "x", color="C3",
           label="skipped (inf/NaN)")
right.set_xlabel("step")
right.set_ylabel("loss scale")
right.legend(fontsize=8)
plt.show()

# %%
print("the first steps overflow and are skipped until the scale fits (steps 1-3 skipped):",
      skipped[:3] == [1, 2, 3])
print("few steps are skipped in all (at most a quarter):", len(skipped) <= steps / 4)
print("float16 with loss scaling ends within 0.15 of float32's loss (mean of the last steps):",
      abs(np.mean(mixed.losses[-tail:]) - np.mean(fp32.losses[-tail:])) < 0.15)

# %% [markdown]
# The equivalence itself, with a scale that never overflows (so that no step is
# skipped and both runs see the same updates): ten steps of each, step by step.

# %%
# NBVAL_IGNORE_OUTPUT
ref10 = train(make_net, pair, digits_batches(64, seed=0), 10, dtype="float32")
mp10 = train(make_net, pair, digits_batches(64, seed=0), 10, dtype="float16",
             scaler=DynamicLossScaler(init_scale=2.0 ** 10))
loss_gap = np.abs(np.array(mp10.losses) - ref10.losses).max()
distance = np.sqrt(sum(((a - b) ** 2).sum() for a, b in zip(mp10.master, ref10.master)))
relative = distance / np.sqrt(sum((a ** 2).sum() for a in ref10.master))
print(f"max per-step loss gap {loss_gap:.1e}; weights: |w16 - w32| / |w32| = {relative:.1e}")

# %%
print("all ten steps applied:", all(mp10.applied))
print("per-step losses within 0.01 of float32's:", loss_gap < 0.01)
print("weights within 1% of float32's (relative norm):", relative < 0.01)
half, full = mixed.bytes_sent[0], fp32.bytes_sent[0]
print(f"bytes each device sends per step (ring, 2 devices): float32 {full:,}, float16 {half:,}")
print("float16 sends exactly half:", 2 * half == full == train_bytes(fp32.sizes, 2, "float32"))

# %% [markdown]
# ### What MXNet offers: `amp`
#
# `mxnet.contrib.amp` does the same automatically: `amp.init()` rewrites MXNet's
# operators to run in the lower precision where that is safe, `amp.init_trainer` attaches
# a dynamic loss scaler (the rule above: 2¹⁶ to start, doubled after 2000 good steps),
# and `amp.scale_loss` multiplies the loss. On a CPU its target is bfloat16, which has
# float32's range and needs no loss scaling; float16 is for GPUs. `amp.init` changes
# MXNet for the whole process, so we try each in a fresh one. What runs depends on
# whether oneDNN is on (the course's second numeric configuration turns it off):

# %%
# NBVAL_IGNORE_OUTPUT
bf16, fp16 = amp_probe.probe("bfloat16"), amp_probe.probe("float16")
print(f"oneDNN on: {amp_probe.onednn_on()}")
for report in (bf16, fp16):
    print(f"amp {report.target_dtype} on CPU: forward and backward ran: {report.ran}; "
          + (f"output {report.output_dtype}, gradients {report.grad_dtype}, max relative "
             f"difference from float32's output {report.max_rel_diff:.1e}" if report.ran
             else f"error: {report.error}"))

# %%
print("amp bfloat16 runs on CPU exactly when oneDNN is on:", bf16.ran == amp_probe.onednn_on())
print("where it runs, the weights' gradients (and so the master weights) stay float32:",
      not bf16.ran or bf16.grad_dtype == "float32")
print("amp float16 does not run on CPU (its Dense layer needs cuDNN):",
      not fp16.ran and "CuDNN" in fp16.error)

# %% [markdown]
# On a GPU, float16 with amp is three lines in the training loop. The cell runs them
# where a GPU is (in a fresh process, since `amp.init` would change the rest of this
# notebook too) and says so where there is none:
#
# ```python
# amp.init()                                   # before the net is built
# amp.init_trainer(trainer)                    # the dynamic loss scaler
# with autograd.record():
#     loss = loss_fn(net(X), y)
# with amp.scale_loss(loss, trainer) as scaled:
#     autograd.backward(scaled)
# trainer.step(batch_size)                     # unscales; skips a step with inf/NaN
# ```

# %%
# NBVAL_IGNORE_OUTPUT
if gpus:
    print(amp_probe.gpu_training(steps=20))
else:
    print("No usable GPU here: amp's float16 training is not run (it needs cuDNN).")

# %% [markdown]
# ## 6 · Overlap, for real: sending gradients while the backward runs
#
# Notebook 05 modelled it: a framework that sends each layer's gradients as soon as
# the backward has produced them takes about max(compute, communication) + update per
# step instead of their sum. Here it runs. Backward produces gradients last layer
# first; they are packed into **buckets** of a chosen size (as PyTorch's DDP and Horovod
# do: one message per bucket instead of one per parameter), and a second thread, the
# *communication stream*, allreduces each full bucket with the course's ring while the
# main thread goes on with the backward. Without overlap, the same buckets wait until
# the backward is done. The buckets, last layer first:

# %%
hidden = config.pick(full=(512,) * 3, fast=(256,) * 3)
bucket_bytes = config.pick(full=2 ** 20, fast=2 ** 18)
make_deep = lambda: mlp(hidden, seed=0)  # noqa: E731
plan = OverlapTrainer(make_deep(), pair, bucket_bytes)
label = {p.name: f"{kind}{len(plan.layers) - depth}"
         for depth, params in enumerate(plan.layer_params)
         for p, kind in zip(params, ("b", "W"))}
print(f"{len(plan.bucket_names)} buckets of at least {bucket_bytes:,} bytes:")
for i, names in enumerate(plan.bucket_names):
    nbytes = sum(4 * plan.by_name[n].data(pair[0]).size for n in names)
    print(f"  bucket {i}: {' '.join(label[n] for n in names):16} {nbytes:>10,} bytes")

# %% [markdown]
# Every layer's backward and every bucket's allreduce is waited for and stamped with
# its start and end: a step's **timeline** is a list of events. The two modes take
# turns step by step, on the same batches:

# %%
# NBVAL_IGNORE_OUTPUT
timelines = measure(make_deep, pair, digits_batches(256, seed=0), bucket_bytes,
                    steps=config.pick(full=20, fast=8))
summaries = {mode: [summary(t) for t in timelines[mode]] for mode in (True, False)}


def median_step(mode):
    order = np.argsort([s.step_s for s in summaries[mode]])
    return order[len(order) // 2]


fig, axes = plt.subplots(2, 1, figsize=(11, 4), sharex=True)
for ax, mode in zip(axes, (False, True)):
    i = median_step(mode)
    overlap_timeline.draw(ax, timelines[mode][i],
                          f"{'with' if mode else 'without'} overlap (median step)")
plt.tight_layout()
plt.show()
for mode in (False, True):
    s = summaries[mode][median_step(mode)]
    print(f"{'with' if mode else 'without':7} overlap: step {1e3 * s.step_s:6.1f} ms, compute "
          f"{1e3 * s.compute_s:6.1f} ms, communication {1e3 * s.communication_s:6.1f} ms, "
          f"of which hidden behind compute {1e3 * s.hidden_s:5.1f} ms")

# %% [markdown]
# Notebook 05's model, fed with the step without overlap: compute c (forward and
# backward), communication a, update u; it predicts c + a + u without overlap and
# max(c, a) + u with it.

# %%
# NBVAL_IGNORE_OUTPUT
def phases(events):
    c = sum(e.end - e.start for e in events if e.lane == "compute" and e.name != "update")
    u = sum(e.end - e.start for e in events if e.name == "update")
    return c, summary(events).communication_s, u


serial = [phases(t) for t in timelines[False]]
c, a, u = (float(np.median(col)) for col in zip(*serial))
model = StepTimeModel(fixed_s=c, per_sample_s=0.0, communication_s=a, update_s=u)
measured = {mode: float(np.median([s.step_s for s in summaries[mode]])) for mode in (True, False)}
for mode in (False, True):
    print(f"{'with' if mode else 'without':7} overlap: model {1e3 * model.step_s(0, mode):6.1f} ms,"
          f" measured {1e3 * measured[mode]:6.1f} ms (median step)")

# %%
ran_during = np.mean([any(e.lane == "communication" and e.start < max(
    x.end for x in t if x.name.startswith("backward")) for e in t) for t in timelines[True]])
print("with overlap, communication started before the backward ended in most steps:",
      ran_during >= 0.5)
print("without overlap, never:", not any(
    min(e.start for e in t if e.lane == "communication") <
    max(x.end for x in t if x.name.startswith("backward")) for t in timelines[False]))
print("the measured overlapped step is no faster than the model's max(c, a) + u "
      "(with 30% to spare):", measured[True] > 0.7 * model.step_s(0, True))

# %% [markdown]
# Notebook 05's model assumes that communication uses links and compute uses arithmetic
# units, so that neither slows the other: between GPUs with their own interconnect
# that is close to true. CPU contexts stand in for devices here, and then both streams
# run on the same cores and the same memory, and Python's two threads take turns: time
# the allreduce spends beside the backward is taken from the backward (compare the
# compute times of the two steps above). The structure is the one a GPU cluster uses;
# the gain needs hardware where the two really run side by side.
#
# Overlap changes when the gradients travel, not what they are: the weights after these
# steps are the same bits with and without it (the tests also check both against one
# device training on the whole batch).

# %%
trainers_equal = OverlapTrainer(make_deep(), pair, bucket_bytes, overlap=True), \
    OverlapTrainer(make_deep(), pair, bucket_bytes, overlap=False)
check_batches = digits_batches(256, seed=1)
for _ in range(3):
    X, y = next(check_batches)
    for t in trainers_equal:
        t.step(X, y)
print("weights with and without overlap are equal bit for bit:", all(
    (p.data(pair[0]) == q.data(pair[0])).asnumpy().all()
    for p, q in zip(*(t.net.collect_params().values() for t in trainers_equal))))

# %% [markdown]
# ## 7 · A roofline: why the ladder climbs
#
# An operation does F floating-point operations and must move at least B bytes between
# memory and the processor; its **arithmetic intensity** is I = F / B. A machine with
# peak P FLOP/s and memory bandwidth W bytes/s runs it at most at min(P, I·W): left of
# the *ridge* I* = P / W it waits for memory, right of it for arithmetic. Counted from
# the shapes (float32), for the sizes measured below:

# %%
n = config.pick(full=2 ** 24, fast=2 ** 22)
d = config.pick(full=1024, fast=512)
side = int(np.sqrt(n))
ops = [roofline.dot(n), roofline.matvec(side), roofline.matmul(d, d, d),
       roofline.dense(64, 1024, 1024), roofline.update("momentum", n),
       roofline.update("adam", n), roofline.ring_allreduce(n, 2)]
print(f"{'operation':44} {'FLOPs':>14} {'bytes':>14} {'FLOPs/byte':>10}")
for op in ops:
    print(f"{op.name:44} {op.flops:14,} {op.bytes:14,} {op.intensity:10.3f}")

# %% [markdown]
# A dot product reads each number once and does one multiply-add with it (I ≈ 1/4);
# a matrix-vector product reads the matrix once (I ≈ 1/2); a d×d matrix product reads
# 3d² numbers and does d³ multiply-adds with them, so its intensity grows with d. An
# optimizer update touches each weight and its state once (I < 1 whatever the model's
# size), and so does an allreduce. Now this machine's P (the fastest large matrix
# product, by `nd.dot` or by `FullyConnected`, whichever runs faster here) and W (the fastest copy of an array as large as the vectors above), and the
# operations placed on the roof at their measured speed; hollow squares are notebook
# 01's ladder as notebook 01 runs it (d·n dot products, n matrix-vector products, one
# matrix product; every call's launch cost included):

# %%
# NBVAL_IGNORE_OUTPUT
points = roofline_measure.operations(n, d)
rungs = roofline_measure.ladder(config.pick(full=128, fast=64))
# other programs only slow a measurement down: the best of two, before and after
peak = max(roofline_measure.peak_flops(config.pick(full=2048, fast=1024)) for _ in range(2))
bandwidth = max(roofline_measure.bandwidth(4 * n, repeats=10) for _ in range(2))
ridge = peak / bandwidth
print(f"peak {peak / 1e9:.1f} GFLOP/s, bandwidth {bandwidth / 1e9:.1f} GB/s, "
      f"ridge {ridge:.1f} FLOPs/byte")
for p in [*points, *rungs]:
    roof = roofline.attainable(p.operation.intensity, peak, bandwidth)
    print(f"{p.operation.name:44} {p.flops_per_s / 1e9:8.2f} GFLOP/s  "
          f"(roof {roof / 1e9:7.2f})")
fig, ax = plt.subplots(figsize=(9, 5))
roofline_plot.draw(ax, peak, bandwidth, points, rungs, "This machine's roofline")
plt.show()

# %%
by_name = {p.operation.name.split(" (")[0]: p for p in points}
memory_bound = ["<x, x'>", "M x", "momentum update", "adam update", "ring allreduce"]
print("M X lies right of the ridge (I > 2 I*):", by_name["M X"].operation.intensity > 2 * ridge)
print("<x, x'>, M x, the updates and the allreduce lie left of it (I < I*/2):",
      all(by_name[k].operation.intensity < ridge / 2 for k in memory_bound))
print("M X runs at least 3x as many FLOP/s as M x:",
      by_name["M X"].flops_per_s > 3 * by_name["M x"].flops_per_s)
print("notebook 01's ladder climbs: each rung at least 3x the FLOP/s of the one below:",
      rungs[1].flops_per_s > 3 * rungs[0].flops_per_s and
      rungs[2].flops_per_s > 3 * rungs[1].flops_per_s)
dot_roof = roofline.attainable(rungs[0].operation.intensity, peak, bandwidth)
print("its dot-product rung runs below a tenth of its roof:", rungs[0].flops_per_s < dot_roof / 10)

# %% [markdown]
# So the ladder climbs for two reasons the roofline separates. Between M x and M X the
# arithmetic is the same and the bytes are not: M x lies left of the ridge, under the
# roof that memory sets, while M X reuses every number d times and lies right of it,
# where only arithmetic limits it (how close a product comes to the peak depends on its
# kernel). Between the dot products and M x the intensity barely changes (1/4 against
# 1/2), yet notebook 01's dot-product rung runs far below its roof: d·n separate calls,
# each paying MXNet's launch cost, which no roof includes. A measured point can also
# sit above its roof: the bandwidth is that of one copy, and an operation whose data
# stays in a cache, or which more threads read, can go faster. The optimizer update and the allreduce sit with the dot product: no
# batch size makes them compute-bound, which is why sharding them (sections 2 and 3)
# and sending fewer bytes (section 5) pay.
