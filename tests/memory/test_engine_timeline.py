"""MXNet's engine on its profiler's timeline (tutorial/memory/engine_timeline.py): bad input
ends in a sentence naming the argument, a child that fails or hangs too; and one real run
of each engine (a small net, 2 profiled steps on 4 CPU contexts) whose timelines must show
what each engine is: NaiveEngine runs one operator at a time on the Python thread, the
threaded engine runs backward and communication on the devices' own threads."""

import json
import os

import mxnet as mx
import pytest

from tutorial.memory import engine_timeline as et

SMALL = {"devices": 4, "hidden": (32, 32), "batch": 64, "steps": 2, "warmup": 1}


@pytest.mark.parametrize("change, match", [
    ({"engine": "fast"}, "engine must be one of"),
    ({"hidden": ()}, "hidden must be"),
    ({"hidden": 32}, "hidden must be"),
    ({"hidden": (32, 0)}, r"hidden\[1\] must be a whole number"),
    ({"batch": 0}, "batch must be a whole number"),
    ({"batch": 66}, "batch=66 does not split evenly over 4 devices"),
    ({"steps": 0}, "steps must be a whole number"),
    ({"warmup": -1}, "warmup must be a whole number >= 0"),
    ({"bulk": "no"}, "bulk must be True or False"),
    ({"timeout": 0}, "timeout=0 is out of range"),
    ({"devices": 0}, "devices must be a whole number"),
    ({"devices": [mx.cpu(0), mx.cpu(0)]}, "devices repeat"),
    ({"devices": "cpu"}, "devices must be a list of MXNet contexts")])
def test_bad_input_is_refused_before_any_child_starts(tmp_path, change, match):
    args = {**SMALL, "engine": "naive", "trace_path": tmp_path / "t.json", **change}
    with pytest.raises(ValueError, match=match):
        et.run(**args)
    assert not (tmp_path / "t.json").exists()


def test_a_trace_path_in_a_missing_folder_and_a_missing_folder_for_compare(tmp_path):
    with pytest.raises(ValueError, match="trace_path=.*its folder does not exist"):
        et.run("naive", tmp_path / "nowhere" / "t.json", **SMALL)
    with pytest.raises(ValueError, match="folder=.*is not an existing folder"):
        et.compare(tmp_path / "nowhere", **SMALL)
    with pytest.raises(ValueError, match="repeats must be a whole number"):
        et.compare(tmp_path, repeats=0, **SMALL)


def test_cpu_contexts_past_the_profilers_slots_are_refused(tmp_path):
    cores = len(os.sched_getaffinity(0))
    if mx.runtime.Features().is_enabled("CUDA"):
        pytest.skip("a CUDA build's profiler has room for 32 GPUs after the cores")
    with pytest.raises(ValueError, match=rf"cpu\({cores + 2}\) is past what MXNet's profiler"):
        et.run("naive", tmp_path / "t.json", devices=[mx.cpu(0), mx.cpu(cores + 2)],
               hidden=(8,), batch=8)


def test_a_child_that_fails_ends_in_one_sentence(tmp_path, monkeypatch):
    monkeypatch.setattr(et, "SCRIPT", "import sys\nsys.stderr.write('Traceback (most recent "
                        "call last):\\n  File x\\nValueError: the net broke\\n')\nsys.exit(3)")
    with pytest.raises(RuntimeError) as caught:
        et.run("threaded", tmp_path / "t.json", **SMALL)
    assert str(caught.value) == ("training under the threaded engine failed (exit code 3): "
                                 "ValueError: the net broke")


def test_a_child_that_hangs_is_stopped_with_a_sentence(tmp_path, monkeypatch):
    monkeypatch.setattr(et, "SCRIPT", "import time\ntime.sleep(60)")
    with pytest.raises(TimeoutError, match="did not finish within timeout=1 s"):
        et.run("naive", tmp_path / "t.json", timeout=1, **SMALL)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("traces")
    return {engine: r[0] for engine, r in et.compare(folder, timeout=240, **SMALL).items()}


@pytest.mark.slow
def test_the_naive_engine_runs_one_operator_at_a_time_on_the_python_thread(runs):
    naive = runs["naive"]
    assert naive.trace.lanes == ("Python thread",)
    assert len(naive.steps) == 2 and all(s.most_at_once == 1 for s in naive.steps)
    ops = sorted(naive.trace.events, key=lambda e: e.start)
    assert all(b.start >= a.end for a, b in zip(ops, ops[1:]))
    for step in naive.steps:
        assert step.busy["backward"] > 0 and step.busy["communication"] > 0
        assert step.comm_in_backward == 0 and step.comm_beside_compute == 0


@pytest.mark.slow
def test_under_the_naive_engine_backward_returns_only_when_its_work_is_done(runs):
    trace = runs["naive"].trace
    for start, end in trace.steps:
        issued = {e.name: e for e in trace.issued if start <= e.start <= end}
        ops = [e for e in trace.events if start <= e.start <= end]
        backward = issued["backward() issued"]
        assert max(e.end for e in ops if e.kind == "backward") <= backward.end
        assert min(e.start for e in ops if e.kind == "communication") >= backward.end


@pytest.mark.slow
def test_the_threaded_engine_runs_backward_and_communication_on_the_devices_threads(runs):
    threaded = runs["threaded"]
    assert len(threaded.trace.lanes) >= 5                # the Python thread and one per device
    for step in threaded.steps:
        ops = [e for e in threaded.trace.events if step.start <= e.start <= step.end]
        for kind in ("backward", "communication"):
            lanes = {e.lane for e in ops if e.kind == kind}
            assert len(lanes) > 1 and "Python thread" not in lanes, (kind, lanes)


@pytest.mark.slow
def test_both_engines_compute_the_same_losses_and_write_traces_a_browser_opens(runs):
    threaded, naive = runs["threaded"], runs["naive"]
    assert threaded.losses == naive.losses and len(threaded.losses) == 2
    assert threaded.devices == ("cpu(0)", "cpu(1)", "cpu(2)", "cpu(3)")
    for r in runs.values():
        with open(r.trace_path) as f:
            events = json.load(f)["traceEvents"]
        assert any(e.get("cat") == "operator" for e in events)
        named = {e["args"]["name"] for e in events if e.get("ph") == "M"}
        assert {"cpu(2)", "cpu(3)", "Python thread"} <= named   # not "cpu pinned/"
        assert len(r.step_ms) == 2 and et.median_step(r) in (0, 1)
