"""A few real ZeRO-1 steps for the deck's memory demo: the step's ledger beside the count.

:func:`zero1_reports` trains the demo's MLP with :class:`~tutorial.memory.zero.ZeroTrainer`
(stage 1, the course's Adam) on K devices (GPUs, or CPU contexts standing in for them) and
yields one :class:`Recorded` per step: the loss, and what each device's
:class:`~tutorial.memory.ledger.Ledger` saw it hold at its peak, by kind, and send. The
view puts it next to the count of :mod:`tutorial.viz.memory_model`
(:func:`compare_html`); notebook 13 section 2 makes the same comparison for every stage.

>>> from tutorial.memory.footprint import Footprint
>>> f = Footprint(100, 100, 50, 20, 30)
>>> Recorded(1, 0.5, (f,)).equal((f,))
True
>>> devices_label([0, 1, 2, 3]), devices_label([0, 2]), devices_label([5])
('0–3', '0, 2', '5')
"""

from typing import NamedTuple, Tuple

import numpy as np

from tutorial.memory.footprint import Footprint
from tutorial.memory.ledger import KINDS

STEPS = 3
LEARNING_RATE = 0.001


class Recorded(NamedTuple):
    step: int
    loss: float
    devices: Tuple[Footprint, ...]          # per device: peak bytes held by kind, bytes sent

    def equal(self, counted):
        """Every device held and sent exactly the counted bytes."""
        return tuple(self.devices) == tuple(counted)


def _params(widths, seed):
    import mxnet as mx

    from tutorial.memory import layers

    mx.random.seed(seed)
    net = layers.mlp(widths, prefix="memory_run_")
    net.initialize(mx.init.Xavier())
    return layers.from_gluon(net)


def zero1_reports(widths, batch, devices, stop, steps=STEPS, seed=0):
    """Yield a :class:`Recorded` after each of ``steps`` ZeRO-1 steps on ``devices``."""
    from tutorial.memory.zero import ZeroTrainer
    from tutorial.optim.adaptive import TutorialAdam
    from tutorial.parallel.workload import digits_batches

    trainer = ZeroTrainer(_params(widths, seed), devices, 1,
                          lambda: TutorialAdam(learning_rate=LEARNING_RATE))
    batches = digits_batches(batch, seed=seed)
    for step in range(1, steps + 1):
        if stop.is_set():
            return
        X, y = next(batches)
        loss = trainer.step(X.astype(np.float32), y)
        held = [trainer.ledger.peak_by_kind(d) for d in range(trainer.k)]
        yield Recorded(step, float(loss), tuple(
            Footprint(*(h[kind] for kind in KINDS), trainer.sent[d])
            for d, h in enumerate(held)))


def _kb(n):
    return f"{n / 1e3:,.1f}"


def devices_label(devices):
    """``[0, 1, 2, 3]`` -> ``'0–3'``; devices not in one run of numbers are listed."""
    if len(devices) > 2 and list(devices) == list(range(devices[0], devices[-1] + 1)):
        return f"{devices[0]}–{devices[-1]}"
    return ", ".join(map(str, devices))


def compare_html(recorded, counted, size=18):
    """A table: the ledger's / counted kB of each kind and of the bytes sent, one row per group
    of devices whose row reads the same (ZeRO's shards differ by a few bytes: one row of K
    devices, which fits the slide's side panel at K = 8). The verdict above it compares
    every device's bytes exactly."""
    head = "".join(f"<th style='padding:0 6px'>{h}</th>" for h in
                   ("devices", "weights", "gradients", "Adam state", "activations", "sent"))
    groups = {}                                  # a row's cells as shown -> its devices
    for d, (m, c) in enumerate(zip(recorded.devices, counted)):
        cells = "".join(
            f"<td style='padding:0 6px;text-align:right;color:{'#222' if a == b else '#b30000'}'>"
            f"{_kb(a)}{'' if a == b else ' ≠ ' + _kb(b)}</td>" for a, b in zip(m, c))
        groups.setdefault(cells, []).append(d)
    rows = [f"<tr><td style='text-align:center'>{devices_label(devices)}</td>{cells}</tr>"
            for cells, devices in groups.items()]
    same = recorded.equal(counted)
    verdict = ("ledger = count on every device (kB)" if same else
               "ledger ≠ count (red: ledger ≠ count kB)")
    return (f"<div class='memory-run-table' style='font:{size}px sans-serif'>"
            f"<div>step {recorded.step}: loss {recorded.loss:.3f}; {verdict}: {same}</div>"
            # devices that differ get rows of their own: past four rows the table scrolls
            f"<div style='max-height:140px;overflow-y:auto'>"
            f"<table style='border-collapse:collapse'><tr>{head}</tr>{''.join(rows)}"
            f"</table></div></div>")
