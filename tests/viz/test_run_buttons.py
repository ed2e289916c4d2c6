"""RunButtons: the Start/Stop wiring the dashboard, the throughput demo and the cluster demo
share (one run at a time, Stop between steps, the buttons back when the run ends)."""

import threading

import pytest

from tutorial.viz.run_buttons import RunButtons


def waits_for(gate):
    def reports(stop):
        yield 1
        while not stop.is_set() and not gate.is_set():
            gate.wait(0.01)
        yield 2
    return reports


def test_a_run_disables_start_and_enables_stop_until_it_ends():
    gate, seen, ended = threading.Event(), [], []
    buttons = RunButtons("Go")
    run = buttons.launch(waits_for(gate), seen.append, lambda *a: ended.append(a))
    assert buttons.running and buttons.start_button.disabled and not buttons.stop_button.disabled
    assert buttons.launch(waits_for(gate), seen.append) is run           # one at a time
    gate.set()
    assert run.join(10) and seen == [1, 2] and ended == [("finished", "")]
    assert not buttons.start_button.disabled and buttons.stop_button.disabled


def test_stop_ends_the_run_between_two_reports():
    buttons, ended = RunButtons("Go"), []
    run = buttons.launch(waits_for(threading.Event()), lambda r: None,
                         lambda *a: ended.append(a))
    buttons.stop_button.click()
    assert run.join(10) and ended == [("stopped", "")]
    assert not buttons.start_button.disabled


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_buttons_come_back_even_when_drawing_the_end_fails():
    buttons = RunButtons("Go")

    def broken(status, message):
        raise RuntimeError("drawing failed")

    run = buttons.launch(lambda stop: iter([1]), lambda r: None, broken)
    assert run.join(10)
    assert not buttons.start_button.disabled and buttons.stop_button.disabled


@pytest.mark.parametrize("make", ["dashboard", "throughput", "cluster"])
def test_the_three_start_stop_widgets_share_run_buttons(make):
    if make == "dashboard":
        from tutorial.viz.dashboard import TrainingDashboard as Widget
    elif make == "throughput":
        from tutorial.viz.throughput_button import ThroughputDemo as Widget
    else:
        from tutorial.viz.cluster_button import ClusterDemo as Widget
    kwargs = {"on_gpus": False} if make == "throughput" else {}
    widget = Widget(**kwargs)
    assert isinstance(widget.buttons, RunButtons)
    assert widget.buttons.stop_button.disabled and widget.run is None
