"""tutorial.progress: the line's text, its rate limit, and silence outside a kernel."""

import itertools

import pytest

from tutorial.progress import Progress, format_seconds, progress_line, track


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.mark.parametrize("seconds, text", [(0, "0 s"), (59.4, "59 s"), (60, "1 min"),
                                           (125, "2 min 5 s"), (3720, "1 h 2 min")])
def test_format_seconds(seconds, text):
    assert format_seconds(seconds) == text


def test_time_left_extrapolates_from_the_finished_units():
    assert progress_line("fit", 1, 4, 10.0) == \
        "fit: 1 of 4 (25%), 10 s elapsed, about 30 s left"
    assert progress_line("fit", 3, 4, 30.0, detail="epoch 3") == \
        "fit: 3 of 4 (75%), 30 s elapsed, about 10 s left (epoch 3)"


def test_outside_a_kernel_nothing_is_shown(capsys):
    with Progress("quiet", 3) as progress:
        for _ in range(3):
            progress.advance()
    assert progress._widget is None
    assert capsys.readouterr().out == ""


def test_the_widget_starts_constant_and_updates_in_place(capsys):
    clock = FakeClock()
    progress = Progress("sweep", 4, show=True, clock=clock, min_interval=1.0)
    assert progress._widget.value == "sweep: starting (0 of 4)"
    clock.now += 2
    progress.advance("a")
    assert progress._widget.value == "sweep: 1 of 4 (25%), 2 s elapsed, about 6 s left (a)"
    clock.now += 0.5                      # within min_interval: not redrawn
    progress.advance("b")
    assert progress._widget.value.startswith("sweep: 1 of 4")
    clock.now += 0.5
    progress.advance("c")                 # 1 s since the last draw: redrawn
    assert progress._widget.value.startswith("sweep: 3 of 4")
    progress.advance("d")                 # the last unit always draws
    assert progress._widget.value == "sweep: done, 4 of 4 in 3 s (d)"


def test_an_error_shows_where_the_work_stopped():
    with pytest.raises(RuntimeError):
        with Progress("runs", 5, show=True, clock=FakeClock()) as progress:
            progress.advance()
            raise RuntimeError("boom")
    assert progress._widget.value.endswith("(stopped: RuntimeError)")
    assert "1 of 5" in progress._widget.value


def test_track_counts_every_item_and_checks_the_total():
    assert list(track(iter(range(3)), "items", show=False)) == [0, 1, 2]
    with pytest.raises(ValueError, match="total must be a whole number >= 0"):
        Progress("nothing", -1)
    assert Progress("empty", 0, show=False).line() == "empty: starting (0 of 0)"


def test_in_fast_mode_a_kernel_shows_nothing(monkeypatch):
    """Fast mode produces the stored outputs: no line there, so they do not depend on timing."""
    import tutorial.progress as progress_module

    monkeypatch.setattr(progress_module, "_in_kernel", lambda: True)
    monkeypatch.setenv("TUTORIAL_FAST", "1")
    assert Progress("fast", 2)._widget is None
    monkeypatch.setenv("TUTORIAL_FAST", "0")
    assert Progress("full", 2)._widget is not None


def test_track_reads_an_iterator_without_a_length_one_item_at_a_time():
    def endless():
        for i in itertools.count():
            if i > 100:
                raise AssertionError("track read ahead of the loop (it would eat the memory)")
            yield i

    for item in track(endless(), "train"):
        break
    assert item == 0
    assert list(track(iter(range(5)), "five")) == [0, 1, 2, 3, 4]


def test_a_line_without_a_total_counts_what_is_done():
    assert progress_line("train", 0, None, 0.0) == "train: starting"
    assert progress_line("train", 7, None, 65.0) == "train: 7 done, 1 min 5 s elapsed"


@pytest.mark.parametrize("by", [-5, 0.5, float("nan"), "1"])
def test_advance_refuses_a_step_that_is_not_a_whole_number_of_units(by):
    progress = Progress("fit", 10, show=False)
    with pytest.raises(ValueError, match="by must be a whole number >= 0"):
        progress.advance(by=by)
    assert progress.done == 0


@pytest.mark.parametrize("done, says", [
    (float("nan"), "done=nan is out of range: use a finite number"),
    (float("inf"), "done=inf is out of range: use a finite number"),
    (None, "done=None is out of range: use a number"),
    ("5", "done='5' is out of range: use a number"),
])
def test_update_refuses_a_count_that_is_not_a_finite_number(done, says):
    progress = Progress("fit", 10, show=False)
    with pytest.raises(ValueError, match=says):
        progress.update(done)
    assert progress.done == 0


@pytest.mark.parametrize("args, says", [
    ((5, 0, 1.0), "done=5 is more than total=0"),
    ((25, 20, 1.0), "done=25 is more than total=20"),
    ((5, 20, -27.0), r"elapsed=-27.0 is out of range: use a number in \[0.0, inf\)"),
    ((5, 20, float("nan")), "elapsed=nan is out of range"),
    ((-1, 20, 1.0), "done must be a whole number >= 0"),
    ((1, -3, 1.0), "total must be a whole number >= 0"),
])
def test_progress_line_refuses_counts_and_times_that_cannot_be(args, says):
    with pytest.raises(ValueError, match=says):
        progress_line("sweep", *args)
