"""A training step's timeline: compute and communication lanes, drawn from its events.

The events come from :class:`tutorial.memory.overlap.OverlapTrainer` (a list of
:class:`tutorial.memory.buckets.Event`); this module only draws them.
"""

LANE_ROW = {"compute": 1, "communication": 0}


def colour(name):
    """Forward blue, backward orange, update green, buckets grey-purple."""
    if name.startswith("forward"):
        return "C0"
    if name.startswith("backward"):
        return "C1"
    if name.startswith("update"):
        return "C2"
    return "C4"


def draw(ax, events, title=""):
    """One bar per event on its lane, times in milliseconds, labelled when wide enough."""
    end = max((e.end for e in events), default=0.0)
    for e in events:
        ax.barh(LANE_ROW[e.lane], 1e3 * (e.end - e.start), left=1e3 * e.start, height=0.7,
                color=colour(e.name), edgecolor="white", linewidth=0.5)
        if e.end - e.start > 0.06 * end:
            label = e.name.replace("backward layer ", "B").replace("bucket ", "b")
            ax.text(1e3 * (e.start + e.end) / 2, LANE_ROW[e.lane], label, ha="center",
                    va="center", fontsize=7, clip_on=True)
    ax.set_yticks([1, 0])
    ax.set_yticklabels(["compute", "communication"])
    ax.set_xlabel("ms from the start of the step")
    ax.set_title(title)
