"""Pipeline timelines (Gantt charts) and sweeps, drawn with matplotlib.

Computing and drawing are separate: :func:`bars` turns a schedule's ticks, a replay
(:func:`tutorial.parallel.pipeline.timing.replay`) or a measured run
(:func:`tutorial.parallel.pipeline.executor.run`) into the same rows, and :func:`gantt`
draws rows. Forwards are blue, backwards orange; the darker, the later the micro-batch.

>>> from tutorial.parallel.pipeline.schedules import schedule
>>> bars(schedule("gpipe", 2, 2))[:2]
[(0, 0.0, 1.0, 'F', 0), (0, 1.0, 2.0, 'F', 1)]
"""

COLOURS = {"F": "Blues", "B": "Oranges"}


def bars(source):
    """(stage, start, end, kind, micro-batch) rows from a Schedule, a Run or a
    (schedule, {task: (start, end)}) pair."""
    if hasattr(source, "timings"):                       # a measured Run
        return [(t.task.stage, t.start, t.end, t.task.kind, t.task.microbatch)
                for t in source.timings]
    if isinstance(source, tuple):                        # (schedule, replayed times)
        plan, times = source
        return [(t.stage, *times[t], t.kind, t.microbatch) for t in plan.tasks]
    return [(t.stage, float(t.tick), t.tick + 1.0, t.kind, t.microbatch) for t in source.tasks]


def gantt(ax, rows, stages, microbatches, title="", unit=""):
    """Draw ``rows`` (from :func:`bars`) on ``ax``: one lane per stage, stage 0 on top."""
    import matplotlib.pyplot as plt

    for stage, start, end, kind, i in rows:
        colour = plt.get_cmap(COLOURS[kind])(0.35 + 0.55 * i / max(1, microbatches - 1))
        ax.barh(stage, end - start, left=start, height=0.8, color=colour,
                edgecolor="white", linewidth=0.5)
        if microbatches <= 12 and end - start > 0:
            ax.text((start + end) / 2, stage, f"{kind}{i}", ha="center", va="center",
                    fontsize=7, color="black", clip_on=True)
    ax.set_yticks(range(stages))
    ax.set_yticklabels([f"stage {s}" for s in range(stages)])
    ax.set_ylim(stages - 0.5, -0.5)
    ax.set_xlabel(unit or "ticks")
    ax.set_title(title, fontsize=10)
    return ax


def plot_sweep(ax_time, ax_memory, sweep):
    """Time per sample and activation memory against m, one line per schedule.

    ``sweep``: {schedule name: [(m, seconds per sample, peak activation bytes), ...]}.
    """
    for name, points in sweep.items():
        ms = [p[0] for p in points]
        ax_time.plot(ms, [p[1] * 1e6 for p in points], "o-", label=name)
        ax_memory.plot(ms, [p[2] / 1e6 for p in points], "o-", label=name)
    for ax in (ax_time, ax_memory):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("micro-batches m")
        ax.legend(fontsize=8)
    ax_time.set_ylabel("µs per sample (measured)")
    ax_memory.set_ylabel("MB of activations held, largest stage")
