"""Reading MXNet's profiler trace back (tutorial/memory/profiler_trace.py): a small
hand-written Chrome trace with pinned numbers, the classification of the operator names
MXNet 1.9.1 really writes, and the interval measures on hand-made intervals."""

import json

import pytest

from tutorial.memory import profiler_trace as pt


def op(name, pid, tid, begin_us, end_us):
    return [{"ph": "B", "cat": "operator", "name": name, "pid": pid, "tid": tid, "ts": begin_us},
            {"ph": "E", "cat": "operator", "name": name, "pid": pid, "tid": tid, "ts": end_us}]


def task(name, tid, begin_us, end_us, ident):
    return [{"ph": "b", "cat": "python", "name": name, "id": ident, "tid": tid, "ts": begin_us},
            {"ph": "e", "cat": "python", "name": name, "id": ident, "tid": tid, "ts": end_us}]


PYTHON, W0, W1 = 100, 200, 300           # thread ids: the Python thread, two engine workers
TRACE = {"traceEvents": [
    {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "cpu/0"}},
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "cpu/1"}},
    *task("step 0", PYTHON, 10_000, 20_000, 1),
    *task("backward() issued", PYTHON, 11_000, 11_500, 1),
    *op("FullyConnected", 0, W0, 10_000, 11_000),             # forward, cpu(0)
    *op("_backward_FullyConnected", 0, W0, 12_000, 15_000),   # backward 2..5 ms
    *op("_backward_FullyConnected", 1, W1, 13_000, 16_000),   # backward 3..6 ms, other lane
    *op("CopyCPU2CPU", 0, W0, 15_000, 17_000),                # communication 5..7 ms
    *op("ElementwiseSum", 1, W1, 17_000, 17_500),             # communication 7..7.5 ms
    *op("sgd_update", 0, W0, 18_000, 18_400),                 # update
    *op("DeleteVariable", 1, PYTHON, 19_000, 19_100),         # bookkeeping, Python thread
    # MXNet also writes every operator a second time as an async pair ('b'/'e'): ignored
    {"ph": "b", "cat": "operator", "name": "CopyCPU2CPU", "id": 5, "pid": 9, "tid": 5, "ts": 0},
    {"ph": "e", "cat": "operator", "name": "CopyCPU2CPU", "id": 5, "pid": 9, "tid": 5, "ts": 1},
    *task("step 1", PYTHON, 30_000, 32_000, 2),
    *op("FullyConnected", 0, W0, 30_500, 31_000),
]}


def test_a_hand_written_trace_parses_into_lanes_kinds_and_milliseconds():
    trace = pt.parse(TRACE)
    assert trace.lanes == ("Python thread", "engine thread 1 (cpu(0))",
                           "engine thread 2 (cpu(1))")
    assert trace.steps == ((0.0, 10.0), (20.0, 22.0))
    assert [(e.name, e.kind, e.start, e.end) for e in trace.issued] == \
        [("backward() issued", "python", 1.0, 1.5)]
    lane0, lane1 = trace.lanes[1:]
    got = [(e.kind, e.lane, e.device, e.start, e.end) for e in trace.events]
    assert got == [
        ("forward", lane0, "cpu(0)", 0.0, 1.0),
        ("backward", lane0, "cpu(0)", 2.0, 5.0),
        ("backward", lane1, "cpu(1)", 3.0, 6.0),
        ("communication", lane0, "cpu(0)", 5.0, 7.0),
        ("communication", lane1, "cpu(1)", 7.0, 7.5),
        ("update", lane0, "cpu(0)", 8.0, 8.4),
        ("other", "Python thread", "cpu(1)", 9.0, 9.1),
        ("forward", lane0, "cpu(0)", 20.5, 21.0)]


def test_the_steps_measures_are_the_pinned_numbers():
    first, second = pt.steps(pt.parse(TRACE))
    assert first.busy["backward"] == pytest.approx(4.0)        # 2..6 ms, two lanes merged
    assert first.work["backward"] == pytest.approx(6.0)        # 3 + 3 ms of operators
    assert first.busy["communication"] == pytest.approx(2.5)
    assert first.active == pytest.approx(6.9)                  # 0..1, 2..7.5, 8..8.4
    assert first.backward == pytest.approx((2.0, 6.0))
    assert first.comm_in_backward == pytest.approx(1.0)        # the copy's 5..6 ms
    assert first.comm_beside_compute == pytest.approx(1.0)     # beside cpu(1)'s backward
    assert first.most_at_once == 2
    assert first.lanes == ("engine thread 1 (cpu(0))", "engine thread 2 (cpu(1))")
    assert second.busy["forward"] == pytest.approx(0.5) and second.backward == ()
    assert second.comm_in_backward == 0.0 and second.most_at_once == 1


def test_devices_rename_the_profilers_processes_and_a_path_parses_too(tmp_path):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(TRACE))
    trace = pt.parse(path, devices={1: "cpu(3)"})
    assert trace.lanes[2] == "engine thread 2 (cpu(3))"
    assert {e.device for e in trace.events} == {"cpu(0)", "cpu(3)"}


def test_a_complete_event_counts_and_a_trace_without_steps_is_one_step():
    trace = pt.parse([{"ph": "X", "cat": "operator", "name": "dot", "pid": 0, "tid": 1,
                       "ts": 1000, "dur": 500},
                      *op("CopyCPU2CPU", 0, 2, 1200, 2000)])
    assert trace.lanes == ("engine thread 1 (0)", "engine thread 2 (0)")
    (only,) = pt.steps(trace)
    assert (only.start, only.end) == (0.0, 1.0)
    assert only.comm_beside_compute == pytest.approx(0.3) and only.most_at_once == 2


@pytest.mark.parametrize("name, kind", [
    ("FullyConnected", "forward"), ("Activation", "forward"), ("log_softmax", "forward"),
    ("_backward_FullyConnected", "backward"), ("ImperativeBulk", "backward"),
    ("CopyCPU2CPU", "communication"), ("CopyGPU2GPU", "communication"),
    ("CopyCPU2GPU", "communication"), ("ElementwiseSum", "communication"),
    ("_copyto", "communication"), ("multi_sgd_update", "update"), ("sgd_update", "update"),
    ("sgd_mom_update", "update"), ("adam_update", "update"), ("DeleteVariable", "other"),
    ("WaitForVar", "other"), ("SetValueOp", "other")])
def test_classify_the_names_mxnet_writes(name, kind):
    assert pt.classify(name) == kind


def test_interval_measures_on_hand_made_intervals():
    assert pt.union([(3, 4), (0, 1), (0.5, 2)]) == [(0, 2), (3, 4)]
    assert pt.length([]) == 0 and pt.length([(0, 1), (0, 1)]) == 1
    assert pt.common([(0, 10)], [(2, 3), (2.5, 4), (9, 12)]) == 3     # 2..4 and 9..10
    assert pt.common([(0, 1)], [(1, 2)]) == 0                       # touching is not overlap
    assert pt.most_at_once([]) == 0
    assert pt.most_at_once([(0, 1), (1, 2), (2, 3)]) == 1
    assert pt.most_at_once([(0, 5), (1, 2), (3, 4), (3.5, 6)]) == 3


@pytest.mark.parametrize("bad, match", [
    ({"events": []}, "traceEvents"),
    ({"traceEvents": [{"ph": "M", "name": "process_name", "pid": 0,
                       "args": {"name": "cpu/0"}}]}, "no operator events"),
    ("/no/such/trace.json", "not a readable Chrome trace")])
def test_bad_traces_are_refused_with_a_sentence(bad, match):
    with pytest.raises(ValueError, match=match):
        pt.parse(bad)


@pytest.mark.parametrize("name", ["", None, 3])
def test_classify_refuses_what_is_not_a_name(name):
    with pytest.raises(ValueError, match="name must be"):
        pt.classify(name)
