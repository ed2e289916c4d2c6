"""What one device holds and sends per step, for every setting of the deck's memory demo.

Model (pure, computed once) for :mod:`tutorial.viz.memory_view`: an MLP trained with Adam
on K data-parallel replicas (ZeRO shards over them), each replica split over T devices by
tensor parallelism, with or without recomputation, in float32 or mixed precision. Every
number comes from :mod:`tutorial.memory`; this module only composes them:

- **tensor parallelism** (Megatron pairs, :mod:`~tutorial.memory.tensor_parallel`): in a
  pair, the first layer's outputs are split by :func:`~.tensor_parallel.split` and the
  second layer reads only its block (its bias stays whole), so one device holds the plain
  MLP :func:`tensor_widths` (``h -> h/T -> h``); an unpaired last layer stays whole.
- **ZeRO** (:func:`~tutorial.memory.footprint.footprint`): that per-device MLP, sharded over
  the K replicas, stage 0 to 3: weights, gradients, optimizer state, activations, the
  ring's bytes. Device 0's counts are shown.
- **sent**: ZeRO's ring bytes plus tensor parallelism's allreduces
  (:func:`~.tensor_parallel.bytes_per_step` on the replica's B/K samples); with
  recomputation a pair whose output is recomputed sends its forward allreduce again.
- **recomputation** (:func:`~tutorial.memory.recompute.sqrt_segments`): activations per
  sample as :func:`held_floats` counts them for the √n plan (what
  :func:`~tutorial.memory.recompute.gradients` holds, plus the scores the loss reads).
- **mixed precision** (:data:`~tutorial.memory.precision.BYTES`): float16 weights,
  gradients, activations and messages; a float32 master copy of the weights a device
  updates beside Adam's float32 moments (ZeRO's 2 + 2 + 12 bytes per parameter).

>>> tensor_widths((64, 256, 256, 10), 4)
(64, 64, 256, 10)
>>> held_floats((4, 8, 8, 8, 2), ((0, 2), (2, 4)))     # boundaries 4, 8; inside 8; scores 2
22
"""

from typing import Dict, NamedTuple, Tuple


from tutorial.memory import layers, recompute, tensor_parallel
from tutorial.memory.footprint import Footprint, footprint, state_copies
from tutorial.memory.precision import BYTES
from tutorial.memory.zero import STAGES
from tutorial.parallel.pipeline.data_or_model import dense_stack
from tutorial.validate import check_count

WIDTHS = (64,) + (256,) * 8 + (10,)        # digits in, 8 hidden layers of 256, 10 classes
BATCH = 256
DEVICES = (1, 2, 4, 8)                     # K: data-parallel replicas (ZeRO shards over them)
TENSOR = (1, 2, 4)                         # T: devices per replica (1: no tensor parallelism)
PRECISIONS = ("float32", "mixed")
OPTIMIZER = "adam"
MAX_PARAMETERS = 10_000_000    # the demo builds the MLP to count it: 40 MB of float32 at most


class Setting(NamedTuple):
    """One position of the controls: device 0's bytes per ZeRO stage, and what the tensor
    parallelism part of ``sent`` is (the rest is ZeRO's ring)."""
    stages: Tuple[Footprint, ...]           # one per ZeRO stage 0..3, bytes
    tensor_sent: int                        # bytes of tensor parallelism's allreduces


class MemoryModel(NamedTuple):
    widths: Tuple[int, ...]
    batch: int
    plan: Tuple[Tuple[int, int], ...]       # recomputation's segments (the √n rule)
    settings: Dict[tuple, Setting]          # (K, T, recompute, precision) -> Setting
    zero1: Dict[int, Tuple[Footprint, ...]]  # K -> each device's ZeRO-1 count (T = 1,
    #                                          float32): what a real run is checked against

    def controls(self):
        """The values each control offers, read from the settings computed."""
        keys = list(self.settings)
        return tuple(tuple(dict.fromkeys(k[i] for k in keys)) for i in range(4))


def tensor_widths(widths, t):
    """Widths of the MLP one of ``t`` tensor-parallel devices holds: in each pair of layers
    (0 and 1, 2 and 3, ...) the first one's outputs are split; the pair's output is whole."""
    out = list(widths)
    for p in range((len(widths) - 1) // 2):
        a, b = tensor_parallel.split(widths[2 * p + 1], t)[0]
        out[2 * p + 1] = b - a
    return tuple(out)


def held_floats(widths, plan):
    """Numbers per sample an MLP of ``widths`` holds at its peak when the forward keeps only
    ``plan``'s segment inputs and the backward recomputes one segment at a time: the
    boundaries of the segments not yet back-propagated, the recomputed inside of the
    current one, and the scores. One segment per layer (or one segment) is no
    recomputation: the input and every layer's output."""
    peak, kept = 0, 0
    for start, stop in plan:
        kept += widths[start]
        inside = sum(widths[l + 1] for l in range(start, stop - 1))
        peak = max(peak, kept + inside)
    return peak + widths[-1]


def recomputed_pairs(plan, layer_count):
    """Tensor-parallel pairs whose output a segment recomputes (it lies inside it)."""
    return [p for p in range(layer_count // 2)
            if any(start <= 2 * p + 1 <= stop - 2 for start, stop in plan)]


def tensor_sent(widths, rows, t, plan=None):
    """Bytes one device sends per step in its replica's tensor-parallel allreduces (float32),
    a recomputed pair's forward allreduce once more when ``plan`` is given."""
    stack = dense_stack(widths)
    sent = tensor_parallel.bytes_per_step(stack, rows, t)
    for p in recomputed_pairs(plan or (), len(stack)):
        sent += tensor_parallel.bytes_per_step(stack[2 * p:2 * p + 2], rows, t)
    return int(round(sent))


def in_precision(f, precision, copies):
    """A float32 :class:`Footprint` in ``precision``: mixed halves every array but the
    optimizer's, which gains a float32 master copy of the weights it updates."""
    if precision == "float32":
        return f
    if precision != "mixed":
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    half = lambda n: n * BYTES["float16"] // BYTES["float32"]      # noqa: E731
    return Footprint(half(f.weights), half(f.gradients), f.optimizer_state * (copies + 1) // copies,
                     half(f.activations), half(f.sent))


def check_widths(widths):
    """``widths`` as a tuple of whole numbers (at least two: input and classes) whose MLP has
    at most ``MAX_PARAMETERS`` parameters; a ValueError with the fix, before anything is built."""
    if isinstance(widths, (str, bytes)) or not hasattr(widths, "__len__") or len(widths) < 2:
        raise ValueError(f"widths must list at least two layer widths (input, ..., classes), "
                         f"e.g. (64, 256, 10), got {widths!r}")
    widths = tuple(check_count("each width", w) for w in widths)
    count = sum(a * b + b for a, b in zip(widths[:-1], widths[1:]))
    if count > MAX_PARAMETERS:
        raise ValueError(f"widths={widths} make an MLP of {count:,} parameters, more than the "
                         f"demo builds to count (at most {MAX_PARAMETERS:,}): use narrower "
                         f"layers, e.g. widths=(64, 1024, 1024, 10)")
    return widths


def build_memory_model(widths=WIDTHS, batch=BATCH, devices=DEVICES, tensor=TENSOR,
                       precisions=PRECISIONS):
    """Every setting the view offers, computed once (a few seconds: one footprint per K, T
    and stage; recomputation and precision follow from it)."""
    widths = check_widths(widths)
    batch = check_count("batch", batch)
    for k in devices:
        if batch % check_count("devices", k):
            raise ValueError(f"batch {batch} must split evenly over K = {k} replicas")
        if k > min(widths[1:]):       # as ZeroTrainer (the Run button) refuses it
            raise ValueError(f"ZeRO gives each of the K = {k} devices a shard of every "
                             f"parameter, but the smallest bias has only {min(widths[1:])} "
                             f"elements: use at most {min(widths[1:])} devices")
    copies = state_copies(OPTIMIZER)
    plan = recompute.sqrt_segments(len(widths) - 1)
    settings, zero1 = {}, {}
    for t in tensor:
        mine = tensor_widths(widths, check_count("tensor-parallel degree", t))
        net = layers.mlp(mine, prefix=f"memory_demo_t{t}_")
        net.initialize()
        for k in devices:
            rows = batch // k
            every = [footprint(net, (widths[0],), batch, k, stage, OPTIMIZER)
                     for stage in STAGES]
            zero = [devices_counted[0] for devices_counted in every]
            if t == 1:
                zero1[k] = tuple(every[1])
            for again in (False, True):
                acts = (held_floats(mine, plan) * BYTES["float32"] * rows if again else None)
                extra = tensor_sent(widths, rows, t, plan if again else None)
                for precision in precisions:
                    shown = []
                    for f in zero:
                        f = f._replace(activations=acts if again else f.activations,
                                       sent=f.sent + extra)
                        shown.append(in_precision(f, precision, copies))
                    scale = 1 if precision == "float32" else BYTES["float16"] / BYTES["float32"]
                    settings[k, t, again, precision] = Setting(tuple(shown),
                                                               int(extra * scale))
    return MemoryModel(tuple(widths), batch, tuple(plan), settings, zero1)


def largest(model):
    """The largest bytes held by one device in any setting: the view's fixed axis."""
    return max(f.total for s in model.settings.values() for f in s.stages)


def per_parameter(model, key, stage=0):
    """Bytes held per parameter of the whole network (weights + gradients + state)."""
    params = sum(layer.parameters for layer in dense_stack(model.widths))
    f = model.settings[key].stages[stage]
    return (f.weights + f.gradients + f.optimizer_state) / params

