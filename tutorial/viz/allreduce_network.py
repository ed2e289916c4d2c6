"""The allreduce as a network: four topologies, their messages moving on one shared clock.

Model (pure, computed once): :func:`~tutorial.viz.network_timeline.build_network_model`
lays every schedule of :mod:`tutorial.parallel.collectives` out in time under the
alpha-beta-gamma model, for every node count, array size and straggler offered here.
View: :func:`allreduce_network` draws it. Play moves one clock for all four algorithms,
so the fastest finishes first and the slowest plays longest ("show" one of them to give
it the clock to itself). Every control only looks a timeline up and draws it: nothing is
scheduled or priced in a callback.
"""

import contextlib

from tutorial.viz import network_svg
from tutorial.viz import network_timeline as nt
from tutorial.viz.saved_frame import one_mark

FRAMES = 120                  # Play's steps from t = 0 to the last algorithm's end
ALL = "all four"


def legend(model):
    """What the colours mean (first line) and what the clock counts (second line)."""
    alpha, beta, gamma = model.network
    dot = "<span style='color:{}'>&#9679;</span>".format
    return (f"<div style='font:{network_svg.TEXT_PX}px sans-serif;line-height:1.35'>"
            f"{dot(network_svg.ADD)} a partial sum on its way (the receiver, ringed orange, "
            f"adds it in) &nbsp; {dot(network_svg.COPY)} the full sum on its way &nbsp; "
            f"<span style='color:{network_svg.SLOW}'>red</span>: the slow node<br>"
            f"Node fill: the share of the sum it holds (green: all of it). Clock: "
            f"&alpha; = {alpha * 1e6:g} &micro;s per message, links of {1 / beta / 1e9:g} GB/s, "
            f"adds at {1 / gamma / 1e9:g} GB/s.</div>")


def allreduce_network(model=None, nodes=16, interval_ms=150):
    """The widget: show, nodes, size, straggler, Play + frame slider (the clock beside it
    says the time), one panel per algorithm."""
    import ipywidgets as w

    model = nt.build_network_model() if model is None else model
    counts = model.node_counts
    if nodes not in counts:
        raise ValueError(f"nodes={nodes!r} has no timelines: choose from {counts[0]} to "
                         f"{counts[-1]}, or build the model with that node count")
    narrow = {"description_width": "initial"}

    def box(px):
        return w.Layout(width=f"{px}px")

    pick = w.Dropdown(options=[ALL, *model.algorithms], value=ALL, description="show",
                      style=narrow, layout=box(160))
    n_nodes = w.IntSlider(value=nodes, min=counts[0], max=counts[-1], description="nodes",
                          style=narrow, layout=box(300))
    size = w.Dropdown(options=[label for label, _ in model.sizes], value=model.sizes[-1][0],
                      description="per node", style=narrow, layout=box(170))
    slow = w.Dropdown(options=[("none", -1)] + [(str(i), i) for i in range(counts[-1])],
                      value=-1, description="slow node", style=narrow, layout=box(175))
    slowdown = w.Dropdown(options=[(f"{s:g}\u00d7", s) for s in model.slowdowns],
                          value=model.slowdowns[len(model.slowdowns) // 2],
                          description="slowdown", style=narrow, layout=box(150))
    # the clock starts at the end: a saved or exported frame shows every algorithm done
    # (Play at the end starts again from t = 0)
    play = w.Play(value=FRAMES, min=0, max=FRAMES, interval=interval_ms, description="Play")
    time = w.IntSlider(value=FRAMES, min=0, max=FRAMES, description="frame", style=narrow,
                       layout=box(360))
    w.jslink((play, "value"), (time, "value"))
    play.add_class("allreduce-network-play")        # for a browser test to find
    time.add_class("allreduce-network-time")
    clock = w.HTML(layout=box(150))
    views = {a: w.HTML() for a in model.algorithms}     # built once; draw() sets their value
    panels = w.HBox(layout=w.Layout(flex_flow="row wrap"))
    links = {key: network_svg.background(lay) for key, lay in model.layouts.items()}  # once
    shown = {}                                      # what draw() shows: {algorithm: Timeline}

    def settings():
        slow_node = slow.value if 0 <= slow.value < n_nodes.value else None
        return n_nodes.value, size.value, slow_node, slowdown.value

    def draw(*_):                                   # looks timelines up; never prices
        n, _, slow_node, _ = settings()
        span = max(tl.total for tl in shown.values())
        t = span * time.value / FRAMES
        with contextlib.ExitStack() as stack:
            for view in (clock, *(views[a] for a in shown)):
                stack.enter_context(view.hold_sync())
            clock.value = (f"<span style='font:bold {network_svg.TEXT_PX}px sans-serif'>t = "
                           f"{network_svg.duration(t)}</span>")
            for a, tl in shown.items():
                views[a].value = network_svg.panel(model.layouts[a, n], tl, t, time.value,
                                                   links[a, n], slow_node=slow_node)

    def choose(*_):                                 # a new setting: other timelines
        algorithms = model.algorithms if pick.value == ALL else (pick.value,)
        shown.clear()
        shown.update({a: nt.lookup(model, a, *settings()) for a in algorithms})
        panels.children = [views[a] for a in algorithms]
        draw()

    for control in (pick, n_nodes, size, slow, slowdown):
        control.observe(choose, "value")
    time.observe(draw, "value")
    choose()
    widget = w.VBox([w.HBox([play, time, clock]),
                     w.HBox([pick, n_nodes, size, slow, slowdown]), panels,
                     w.HTML(legend(model))])
    widget.add_class("allreduce-network-view")
    widget.controls = dict(pick=pick, nodes=n_nodes, size=size, slow=slow, slowdown=slowdown,
                           play=play, time=time)
    widget.panels = panels
    return one_mark(widget)
