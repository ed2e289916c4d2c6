"""Layouts side by side: a default list for N devices, their costs as rows, which fit.

:func:`default_layouts` writes each strategy as the most of it the model allows on N
devices, the rest data parallel: tensor parallelism takes the largest divisor of N that
divides the heads, the hidden units and the positions (say 4 for 12 heads on 8 devices:
``D2 x T4``), a pipeline the largest that divides the layers, with micro-batches up to 4
per stage (as many as the batch allows). The list, in order: data parallel (and ZeRO 1,
3), tensor (and + sequence parallel), context, pipeline, experts (for a model with
experts), then pairs and triples of them. Layouts that come out the same are listed once,
and a combination that does not fit the model (a degree that divides nothing) is left
out. :func:`table` prices each with :func:`~.layout_costs.cost`; :func:`format_table`
prints them in GB held and MB sent per device per step.

>>> from tutorial.sequence.layout import Transformer
>>> gpt2 = Transformer(12, 768, 12, 3072, seq=1024, batch=32, vocab=50257)
>>> [layout.name for layout in default_layouts(gpt2, 8)][:6]
['D8', 'D8 ZeRO-1', 'D8 ZeRO-3', 'D2 x T4', 'D2 x T4+SP', 'C8']
>>> rows = table(gpt2, default_layouts(gpt2, 8)[:2])
>>> [round(row.cost.states / 1e9, 2) for row in rows]      # 163 M parameters x 16 bytes
[2.61, 1.47]
>>> feasible(rows[0].cost, memory_limit=16e9)
True
"""

from typing import NamedTuple

from tutorial.sequence.layout import Layout, check_layout, check_model
from tutorial.sequence import layout_costs
from tutorial.sequence.layout_costs import Cost
from tutorial.validate import check_count, check_range

MICROBATCHES_PER_STAGE = 4
GB, MB = 1e9, 1e6


class Row(NamedTuple):
    layout: Layout
    cost: Cost


def largest_divisor(n, *counts, limit=None):
    """The largest divisor of ``n`` (at most ``limit``) that divides every one of ``counts``."""
    return max(d for d in range(1, n + 1)
               if n % d == 0 and all(c % d == 0 for c in counts) and (limit is None or
                                                                      d <= limit))


def fill(model, devices, tensor=1, context=1, pipeline=1, **rest):
    """A :class:`Layout` of ``devices``, the degrees given and data parallel for the rest
    (None when they do not divide ``devices``), micro-batches as the module says."""
    used = tensor * context * pipeline
    if devices % used:
        return None
    data = devices // used
    m = largest_divisor(model.batch // data, limit=MICROBATCHES_PER_STAGE * pipeline) \
        if pipeline > 1 and model.batch % data == 0 else 1
    return Layout(data=data, tensor=tensor, context=context, pipeline=pipeline,
                  microbatches=m, **rest)


def default_layouts(model, devices=8):
    """The layouts of the module's list that fit ``model`` on ``devices`` devices."""
    check_model(model)
    n = check_count("devices", devices, low=2, what="one device has no layout to choose")
    half = n // 2
    t = largest_divisor(n, model.heads, model.hidden, model.seq)
    t_half = largest_divisor(half, model.heads, model.hidden, model.seq)
    c, p = largest_divisor(n, model.seq), largest_divisor(n, model.layers)
    e = largest_divisor(n, model.experts) if model.experts else 1
    candidates = [
        fill(model, n), fill(model, n, zero=1), fill(model, n, zero=3),
        fill(model, n, tensor=t), fill(model, n, tensor=t, sequence_parallel=True),
        fill(model, n, context=c), fill(model, n, pipeline=p),
        fill(model, n, expert=e), fill(model, n, context=c, expert=e),
        fill(model, n, tensor=t_half, sequence_parallel=True),
        fill(model, n, tensor=t_half, sequence_parallel=True, context=n // max(t_half, 1)),
        fill(model, n, pipeline=largest_divisor(half, model.layers)),
        fill(model, n, tensor=2, sequence_parallel=True, pipeline=2),
        fill(model, n, tensor=2, sequence_parallel=True, pipeline=2, zero=1),
    ]
    out = []
    for layout in candidates:
        if layout is None or layout in out or layout.devices != n:
            continue
        try:
            out.append(check_layout(model, layout))
        except ValueError:
            continue                        # a degree that does not divide the model's
    return out


def table(model, layouts):
    """One :class:`Row` per layout (a bad layout raises, naming what does not divide)."""
    if isinstance(layouts, Layout) or not hasattr(layouts, "__iter__"):
        raise TypeError(f"layouts must be a list of Layout, got {type(layouts).__name__}; "
                        f"for one layout write [layout]")
    return [Row(layout, layout_costs.cost(model, layout)) for layout in layouts]


def feasible(cost, memory_limit):
    """Whether a device's ``memory_limit`` bytes hold ``cost.memory`` (a :class:`Cost`)."""
    if not isinstance(cost, Cost):
        raise TypeError(f"cost must be a Cost (from layout_costs.cost), got "
                        f"{type(cost).__name__}")
    return cost.memory <= check_range("memory_limit", memory_limit, 0.0, low_open=True)


def format_table(rows, memory_limit=None):
    """The rows as text: GB held and MB sent per device per step, by kind."""
    units = f"{'':30} {'GB per device':^23} | {'MB sent per device per step':^46}"
    head = (f"{'layout':26} {'dev':>3} {'states':>7} {'activ.':>7} {'total':>7} | "
            f"{'all':>8} {'data':>7} {'tensor':>7} {'context':>7} {'pipe':>6} "
            f"{'expert':>6}" + ("  fits" if memory_limit else ""))
    lines = [units, head, "-" * len(head)]
    for layout, c in rows:
        fits = ("  yes" if feasible(c, memory_limit) else "  no") if memory_limit else ""
        lines.append(f"{layout.name:26} {layout.devices:3} {c.states / GB:7.2f} "
                     f"{c.activations / GB:7.2f} {c.memory / GB:7.2f} | {c.sent / MB:8.0f} "
                     f"{c.data_sent / MB:7.0f} {c.tensor_sent / MB:7.0f} "
                     f"{c.context_sent / MB:7.0f} {c.pipeline_sent / MB:6.0f} "
                     f"{c.expert_sent / MB:6.0f}{fits}")
    return "\n".join(lines)
