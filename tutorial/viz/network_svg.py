"""Drawing one algorithm's network at one moment: SVG built from a layout and a timeline.

Only drawing: the links are drawn once per layout (:func:`background`); :func:`panel` adds
what changes with time (nodes filling up as they hold more of the sum; messages moving
along their links, each keeping to its right; the straggler), then the node numbers on
top, so that no message hides one. Sizes are for a 1280x720 projector: four panels of
:data:`PANEL` pixels side by side, every text at :data:`TEXT_PX` px.
"""

import html

import numpy as np

from tutorial.viz import network_timeline as nt
from tutorial.viz import topology
from tutorial.viz.projector import TEXT_PX

PANEL = 280                   # pixels: four panels fit a projector's width
LANE = 5                      # pixels: messages keep right, so two ways on a link both show
ADD, COPY, SLOW = "#e6550d", "#31a354", "#d62728"    # partial sum, full sum, straggler


def node_radius(size):
    return max(round(0.72 * TEXT_PX), round(size * 0.04))     # room for two digits inside


def _xy(points, size):
    pad = node_radius(size) + 4
    return pad + np.asarray(points) * (size - 2 * pad)


def _curve(lay, link, size):
    (a, b), c = lay.links[link], _xy(lay.controls[link], size)
    (x0, y0), (x1, y1) = _xy(lay.positions[a], size), _xy(lay.positions[b], size)
    return f"M{x0:.1f},{y0:.1f} Q{c[0]:.1f},{c[1]:.1f} {x1:.1f},{y1:.1f}"


def background(lay, size=PANEL):
    """The links of one layout: drawn once, under everything else."""
    return "".join(f"<path d='{_curve(lay, i, size)}' fill='none' stroke='#c9c9c9' "
                   f"stroke-width='2'/>" for i in range(len(lay.links)))


def _fill(share):
    if share >= 1 - 1e-9:
        return "hsl(130,50%,58%)"                          # holds the full sum
    return f"hsl(210,70%,{96 - 48 * share:.0f}%)"         # darker as more is summed in


def _nodes(lay, tl, t, size, slow_node):
    r, held, busy = node_radius(size), nt.held_at(tl, t), set(nt.adding(tl, t).tolist())
    marks = []
    for node, (x, y) in enumerate(_xy(lay.positions, size)):
        edge = (f"stroke='{SLOW}' stroke-width='4'" if node == slow_node else
                f"stroke='{ADD}' stroke-width='3'" if node in busy else
                "stroke='#555' stroke-width='1.5'")
        marks.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='{r}' fill='{_fill(held[node])}' "
                     f"{edge}/>")
    return "".join(marks)


def _labels(lay, size):
    return "".join(f"<text x='{x:.1f}' y='{y + 0.35 * TEXT_PX:.1f}' text-anchor='middle' "
                   f"font-family='sans-serif' font-size='{TEXT_PX}' font-weight='bold' fill='#111' "
                   f"stroke='white' stroke-width='2' paint-order='stroke'>{node}</text>"
                   for node, (x, y) in enumerate(_xy(lay.positions, size)))


def _messages(lay, tl, t, size):
    index, marks = lay.index(), []
    moving, fractions = nt.in_flight(tl, t)
    for m, f in zip(moving, fractions):
        s, d = int(tl.source[m]), int(tl.destination[m])
        point, heading = topology.point_on_link(lay, index[min(s, d), max(s, d)], s, f)
        x, y = _xy(point, size) + LANE * np.array([-heading[1], heading[0]])
        marks.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='6.5' stroke='white' "
                     f"stroke-width='1.5' fill='{ADD if tl.adds[m] else COPY}'/>")
    return "".join(marks)


def _slow_links(lay, size, slow_node):
    return "".join(f"<path d='{_curve(lay, i, size)}' fill='none' stroke='{SLOW}' "
                   f"stroke-width='2.5' stroke-dasharray='6 4'/>"
                   for i, link in enumerate(lay.links) if slow_node in link)


def duration(seconds):
    """'850 µs', '12.3 ms': the clock as a person reads it."""
    return f"{seconds * 1e6:.0f} \u00b5s" if seconds < 1e-3 else f"{seconds * 1e3:.3g} ms"


def status(tl, t):
    """'step 3/30: reduce-scatter' while it runs, 'done at 12.3 ms' once it has ended."""
    if t >= tl.total:
        return f"done at {duration(tl.total)}"
    k = nt.steps_done(tl, t)
    return f"step {k + 1}/{tl.num_steps}: {tl.phases[k]}"


def panel(lay, tl, t, frame, drawn_links, size=PANEL, slow_node=None):
    """HTML of one algorithm at time ``t``: title, status and the network."""
    finished = " style='color:#2b8a3e'" if t >= tl.total else ""
    return (f"<div class='allreduce-network' data-algorithm='{html.escape(tl.algorithm)}' "
            f"data-frame='{frame}' style='width:{size}px;margin:0 6px 0 0'>"
            f"<div style='font:bold {TEXT_PX}px sans-serif'>{html.escape(tl.algorithm)}</div>"
            f"<div style='font:{TEXT_PX}px sans-serif;height:1.3em;white-space:nowrap'>"
            f"<span{finished}>{html.escape(status(tl, t))}</span></div>"
            f"<svg width='{size}' height='{size}' viewBox='0 0 {size} {size}'>{drawn_links}"
            f"{_slow_links(lay, size, slow_node)}{_nodes(lay, tl, t, size, slow_node)}"
            f"{_messages(lay, tl, t, size)}{_labels(lay, size)}</svg></div>")
