"""The deck's memory demo: what one device holds under data parallelism and ZeRO 1, 2, 3.

Model: :func:`tutorial.viz.memory_model.build_memory_model`, every setting computed once
from :mod:`tutorial.memory`. View: :func:`memory_view`, four stacked bars (weights,
gradients, Adam state, activations) on one fixed axis, the bytes each sends per step
under them, and controls for the data-parallel devices K, the tensor-parallel degree T,
recomputation and precision; each click looks a setting up and redraws, nothing is
counted in a callback. **Run 3 ZeRO-1 steps** trains the MLP for real on K devices
(:mod:`tutorial.viz.memory_run`) and shows each device's bytes, as the step's ledger
recorded them, beside the count (the ledger is bookkeeping; notebook 13 measures the
machine). Text 18 px; sized for a 1280x720 slide.

>>> from tutorial.viz.memory_model import build_memory_model
>>> model = build_memory_model(widths=(4, 8, 8, 2), batch=8, devices=(2,), tensor=(1, 2))
>>> "ZeRO-3" in chart_svg(model, (2, 1, False, "float32"))
True
"""

from typing import NamedTuple

import numpy as np

from tutorial.memory.zero import STAGES
from tutorial.viz.memory_model import largest
from tutorial.viz.memory_run import STEPS, compare_html, zero1_reports
from tutorial.viz.projector import TEXT_PX
from tutorial.viz.run_buttons import RunButtons, status_line
from tutorial.viz.saved_frame import one_mark

KINDS = (("weights", "#1f77b4"), ("gradients", "#ff7f0e"), ("Adam state", "#2ca02c"),
         ("activations", "#9467bd"))
NAMES = ("data par.", "ZeRO-1", "ZeRO-2", "ZeRO-3")
WIDTH, HEIGHT, LEFT, TOP, BOTTOM = 690, 390, 78, 52, 300
STYLE = (f"<style>.memory-demo .widget-toggle-button, .memory-demo .widget-label, "
         f".memory-demo .widget-button {{font-size:{TEXT_PX}px}} "
         f".memory-demo .widget-toggle-button {{width:auto; padding:0 10px}}</style>")


class Axis(NamedTuple):
    """The chart's fixed vertical axis: its top, a grid step, and the unit of its labels."""
    top: float
    step: float
    unit: float
    name: str

    def text(self, n):
        return f"{n / self.unit:.2f} {self.name}"


def axis_for(model):
    """0 to a round number above the most any device holds in any setting, in at most six
    steps of 1, 2 or 5 times a power of ten, in MB or kB."""
    most = largest(model)
    unit, name = (1e6, "MB") if most >= 1e6 else (1e3, "kB")
    power = 10 ** np.floor(np.log10(most / unit))
    step = next(s * power for s in (0.1, 0.2, 0.5, 1, 2, 5) if 6 * s * power * unit >= most)
    top = step * np.ceil(most / unit / step)
    return Axis(float(top * unit), float(step * unit), unit, name)


def chart_svg(model, key, axis=None):
    """The four stages' stacked bars for setting ``key`` = (K, T, recompute, precision)."""
    axis = axis_for(model) if axis is None else axis
    stages = model.settings[key].stages
    scale = (BOTTOM - TOP) / axis.top
    slot = (WIDTH - LEFT) / len(stages)
    marks = []
    for tick in np.arange(0, axis.top + axis.step / 2, axis.step):
        y = BOTTOM - tick * scale
        marks.append(f"<line x1='{LEFT - 6}' x2='{WIDTH}' y1='{y:.1f}' y2='{y:.1f}' "
                     f"stroke='#ddd'/><text x='{LEFT - 10}' y='{y + 6:.1f}' "
                     f"text-anchor='end'>{tick / axis.unit:g}</text>")
    for i, (f, name) in enumerate(zip(stages, NAMES)):
        x, y = LEFT + i * slot + 0.18 * slot, float(BOTTOM)
        for value, (kind, colour) in zip(f[:4], KINDS):
            h = value * scale
            y -= h
            marks.append(f"<rect x='{x:.1f}' y='{y:.1f}' width='{0.64 * slot:.1f}' "
                         f"height='{h:.1f}' fill='{colour}'><title>{STAGES[i]}: {kind} "
                         f"{axis.text(value)}</title></rect>")
        middle = x + 0.32 * slot
        marks.append(f"<text x='{middle:.1f}' y='{y - 8:.1f}' text-anchor='middle' "
                     f"font-weight='bold' class='memory-total'>{axis.text(f.total)}</text>"
                     f"<text x='{middle:.1f}' y='{BOTTOM + 26}' text-anchor='middle'>"
                     f"{name}</text><text x='{middle:.1f}' y='{BOTTOM + 52}' "
                     f"text-anchor='middle' fill='#555' class='memory-sent'>sends "
                     f"{axis.text(f.sent)}</text>")
    legend = "".join(f"<rect x='{LEFT + 150 * i}' y='8' width='16' height='16' fill='{c}'/>"
                     f"<text x='{LEFT + 150 * i + 22}' y='23'>{k}</text>"
                     for i, (k, c) in enumerate(KINDS))
    return (f"<svg width='{WIDTH}' height='{HEIGHT}' font-family='sans-serif' "
            f"font-size='{TEXT_PX}'>{legend}<text x='4' y='{TOP - 10}'>{axis.name}</text>"
            f"{''.join(marks)}"
            f"<text x='4' y='{BOTTOM + 80}' fill='#555'>held at its peak by device 0; "
            f"sent: bytes per step</text></svg>")


def readout_html(model, key, axis=None):
    """What the bars say, in sentences computed from the setting."""
    axis = axis_for(model) if axis is None else axis
    k, t, again, precision = key
    setting = model.settings[key]
    plain, zero3 = setting.stages[0], setting.stages[3]
    parts = [f"<b>{k} × {t} = {k * t} device{'s' if k * t > 1 else ''}</b>, batch "
             f"{model.batch}, {len(model.widths) - 1} layers"
             f"{f', {len(model.plan)} recomputed segments' if again else ''}."]
    if k > 1:
        parts.append(f"ZeRO-3 holds {plain.total / zero3.total:.1f}× less than data "
                     f"parallelism and sends {zero3.sent / plain.sent:.2f}× its bytes.")
    else:
        parts.append("One replica: nothing to shard, ZeRO has no one to share with.")
    if t > 1:
        parts.append(f"Tensor parallelism's allreduces: {axis.text(setting.tensor_sent)} of "
                     f"the bytes sent.")
    if precision == "mixed":
        parts.append("Mixed: float16 copies, float32 master weights beside Adam's moments.")
    return (f"<div style='font:{TEXT_PX}px sans-serif;line-height:1.35;width:470px'>"
            f"{' '.join(parts)}</div>")


def _toggles(label, options, value, name):
    import ipywidgets as w

    toggles = w.ToggleButtons(options=options, value=value, description=label,
                              style={"description_width": "initial"})
    toggles.add_class(f"memory-{name}")                 # for a browser test to find
    return toggles


def memory_view(model, devices=4, tensor=1, recompute=False, precision="float32",
                make_devices=None):
    """The widget; ``make_devices(k)`` gives the devices of a real run (default: GPUs, or
    CPU contexts standing in for them)."""
    import ipywidgets as w

    ks, ts, agains, precisions = model.controls()
    key = (devices, tensor, recompute, precision)
    if key not in model.settings:
        raise ValueError(f"no setting {key!r} in the model: K in {ks}, T in {ts}, "
                         f"recompute in {agains}, precision in {precisions}")
    controls = dict(
        devices=_toggles("devices K", [(str(k), k) for k in ks], devices, "devices"),
        tensor=_toggles("tensor-parallel T", [(str(t), t) for t in ts], tensor, "tensor"),
        recompute=_toggles("recompute", [("on" if a else "off", a) for a in agains],
                           recompute, "recompute"),
        precision=_toggles("precision", list(precisions), precision, "precision"))
    axis = axis_for(model)                               # once: the axis never moves
    chart, readout, status, table = w.HTML(), w.HTML(), w.HTML(), w.HTML()
    for widget, name in ((chart, "chart"), (readout, "readout"), (status, "run-status")):
        widget.add_class(f"memory-{name}")

    def chosen():
        return tuple(controls[n].value for n in ("devices", "tensor", "recompute", "precision"))

    def draw(*_):                                        # looks the setting up; never counts
        with chart.hold_sync(), readout.hold_sync():
            chart.value = chart_svg(model, chosen(), axis)
            readout.value = readout_html(model, chosen(), axis)

    for control in controls.values():
        control.observe(draw, names="value")
    draw()

    buttons = RunButtons(f"Run {STEPS} ZeRO-1 steps", width="250px")   # the label whole at 18 px
    buttons.start_button.add_class("memory-run-start")
    status.value = status_line(f"Run: {STEPS} real ZeRO-1 steps on K devices; the bytes each "
                               f"device held and sent, as its ledger recorded them, beside the count.", "#555")
    if make_devices is None:
        from tutorial.devices import training_devices as make_devices

    def start():
        k = controls["devices"].value
        counted = model.zero1[k]
        status.value = status_line(f"training on K = {k} devices (T = 1, float32) ...")
        table.value = ""

        def show(recorded):
            with table.hold_sync():
                table.value = compare_html(recorded, counted)

        def finish(outcome, message):                # what ran: Run ignores T and precision
            status.value = status_line(f"{outcome} (K = {k}, T = 1, float32)"
                                       f"{': ' + message if message else ''}",
                                       "green" if outcome == "finished" else "#b30000")

        return buttons.launch(lambda stop: zero1_reports(model.widths, model.batch,
                                                         make_devices(k), stop),
                              show, finish)

    buttons.on_start(start)
    side = w.VBox([readout, w.HBox([buttons.start_button, buttons.stop_button]), status, table],
                  layout=w.Layout(width="500px"))
    view = w.VBox([w.HTML(STYLE), w.HBox([controls["devices"], controls["tensor"]]),
                   w.HBox([controls["recompute"], controls["precision"]]),
                   w.HBox([chart, side])])
    view.add_class("memory-demo")
    view.controls, view.chart, view.readout = controls, chart, readout
    view.buttons, view.status, view.table = buttons, status, table
    return one_mark(view)

