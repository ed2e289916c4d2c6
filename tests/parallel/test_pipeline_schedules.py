"""Pipeline schedules: dependencies, the bubble formula, and the activations in flight.

The dependency check here is written independently of ``schedules.problems`` (which the
exercise checker uses), and ``problems`` itself is shown to catch broken schedules.
"""

from fractions import Fraction

import pytest

from tutorial.parallel.pipeline import schedules as sch
from tutorial.parallel.pipeline.timing import replay, replay_bubble, span

SIZES = [(p, m) for p in range(1, 7) for m in (1, 2, 3, 4, 5, 8, 12)]


def starts(plan):
    return {(t.stage, t.microbatch, t.kind): t.tick for t in plan.tasks}


@pytest.mark.parametrize("name", list(sch.SCHEDULES))
@pytest.mark.parametrize("p, m", SIZES)
def test_every_task_runs_once_after_its_inputs(name, p, m):
    plan = sch.schedule(name, p, m)
    at = starts(plan)
    assert len(at) == len(plan.tasks) == 2 * p * m
    assert len({(t.tick, t.stage) for t in plan.tasks}) == len(plan.tasks)   # one task per tick
    for s in range(p):
        for i in range(m):
            assert at[s, i, "F"] < at[s, i, "B"]
            if s > 0:
                assert at[s - 1, i, "F"] < at[s, i, "F"]       # activations come from s - 1
            if s < p - 1:
                assert at[s + 1, i, "B"] < at[s, i, "B"]       # gradients come from s + 1
    assert sch.problems(plan) == []


@pytest.mark.parametrize("name", ["gpipe", "1f1b"])
@pytest.mark.parametrize("p, m", SIZES)
def test_bubble_is_p_minus_1_over_m_plus_p_minus_1(name, p, m):
    plan = sch.schedule(name, p, m)
    idle = p * plan.ticks - len(plan.tasks)              # counted from the tasks themselves
    assert Fraction(idle, p * plan.ticks) == Fraction(p - 1, m + p - 1)
    assert sch.bubble(plan) == sch.bubble_formula(p, m)
    assert plan.ticks == 2 * (m + p - 1)


@pytest.mark.parametrize("p, m", SIZES)
def test_naive_schedule_leaves_all_but_one_stage_idle(p, m):
    plan = sch.naive(p, m)
    assert plan.ticks == 2 * p * m
    assert Fraction(p * plan.ticks - len(plan.tasks), p * plan.ticks) == Fraction(p - 1, p)


@pytest.mark.parametrize("p, m", SIZES)
def test_1f1b_holds_at_most_p_microbatches_and_gpipe_holds_m(p, m):
    one_f = sch.peak_held(sch.one_f_one_b(p, m))
    assert max(one_f) <= p
    assert one_f == [min(m, p - s) for s in range(p)]
    assert sch.peak_held(sch.gpipe(p, m)) == [m] * p
    assert sch.peak_held(sch.naive(p, m)) == [1] * p


def test_gpipe_runs_all_forwards_before_backwards_and_1f1b_interleaves():
    for s in range(4):
        kinds = "".join(t.kind for t in sch.gpipe(4, 6).order(s))
        assert kinds == "F" * 6 + "B" * 6
    assert "".join(t.kind for t in sch.one_f_one_b(4, 6).order(0)) == "FFFFBFBFBBBB"


@pytest.mark.parametrize("name", ["gpipe", "1f1b"])
def test_bubble_formula_holds_when_backward_takes_longer(name):
    plan = sch.schedule(name, 4, 6)
    times = replay(plan, lambda t: 1.0 if t.kind == "F" else 2.0)
    assert span(times) == pytest.approx(9 * 3.0)
    assert replay_bubble(plan, times) == pytest.approx(sch.bubble_formula(4, 6))
    unit = replay(plan, lambda t: 1.0)
    assert all(unit[t] == (t.tick, t.tick + 1) for t in plan.tasks)   # replay == the ticks


def test_a_link_delay_lengthens_the_step_by_one_delay_per_message_on_the_critical_path():
    plan = sch.gpipe(3, 2)
    slow = span(replay(plan, lambda t: 1.0, link=0.5))
    assert slow == pytest.approx(plan.ticks + 2 * (3 - 1) * 0.5)


def test_problems_names_a_missing_task_a_clash_and_an_early_start():
    good = sch.gpipe(2, 2).tasks
    missing = sch.Schedule("x", 2, 2, good[:-1])
    assert any("never runs" in p for p in sch.problems(missing))
    clash = sch.Schedule("x", 2, 2, good + (sch.Task(0, 0, 1, "F"),))
    found = " ".join(sch.problems(clash))
    assert "twice" in found and "two tasks at tick 0" in found
    early = sch.Schedule("x", 2, 1, (sch.Task(0, 0, 0, "F"), sch.Task(0, 1, 0, "F"),
                                     sch.Task(1, 1, 0, "B"), sch.Task(2, 0, 0, "B")))
    assert sch.problems(early) == ["stage 1 runs F of micro-batch 0 at tick 0, but F of "
                                   "micro-batch 0 on stage 0 only ends at tick 1"]


def test_grid_draws_the_1f1b_warm_up():
    lines = sch.grid(sch.one_f_one_b(2, 3)).splitlines()
    assert lines[0].split()[:3] == ["stage", "0:", "F0"]
    assert lines[1].split()[1:4] == ["1:", ".", "F0"]


@pytest.mark.parametrize("bad, message", [
    (dict(name="pipedream", stages=2, microbatches=2), "unknown schedule 'pipedream'"),
    (dict(name="gpipe", stages=0, microbatches=2), "stages must be a whole number >= 1"),
    (dict(name="gpipe", stages=2, microbatches=0), "microbatches must be a whole number"),
    (dict(name="1f1b", stages=2.5, microbatches=2), "stages must be a whole number"),
    (dict(name="naive", stages=2, microbatches="4"), "microbatches must be a whole number"),
])
def test_bad_schedule_arguments_are_refused_with_a_sentence(bad, message):
    with pytest.raises(ValueError, match=message):
        sch.schedule(**bad)
