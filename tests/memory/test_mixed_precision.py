"""Mixed-precision training against float32 training and against Gluon's own SGD."""

import mxnet as mx
import numpy as np
import pytest

from gluon_reference import train_one_device
from tutorial.memory.amp_probe import bfloat16_kernels, onednn_on, probe
from tutorial.memory.loss_scaling import DynamicLossScaler
from tutorial.memory.mixed_precision import train, train_bytes
from tutorial.parallel.workload import digits_batches, mlp

DEVICES = [mx.cpu(0), mx.cpu(1)]


def make_net():
    return mlp((32, 32), seed=0)


def gluon_reference(steps, lr=0.1, momentum=0.9):
    """One device, MXNet's own SGD with momentum on the whole batch (an independent code path)."""
    return train_one_device(make_net(), digits_batches(64, seed=0), steps, "sgd",
                            learning_rate=lr, momentum=momentum)


def test_float32_mode_equals_gluon_sgd_on_one_device():
    run = train(make_net, DEVICES, digits_batches(64, seed=0), 8, dtype="float32")
    for ours, theirs in zip(run.master, gluon_reference(8)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


def test_float16_with_loss_scaling_stays_close_to_float32():
    ref = train(make_net, DEVICES, digits_batches(64, seed=0), 10, dtype="float32")
    mp = train(make_net, DEVICES, digits_batches(64, seed=0), 10, dtype="float16",
               scaler=DynamicLossScaler(init_scale=2.0 ** 10))
    assert all(mp.applied)
    assert np.abs(np.array(mp.losses) - ref.losses).max() < 1e-2
    distance = np.sqrt(sum(((a - b) ** 2).sum() for a, b in zip(mp.master, ref.master)))
    size = np.sqrt(sum((a ** 2).sum() for a in ref.master))
    assert distance / size < 1e-2
    assert distance > 0                     # float16 did round something: the test can fail


def test_overflowing_steps_are_skipped_and_the_scale_halves():
    start = [p.data().asnumpy() for p in make_net().collect_params().values()]
    run = train(make_net, DEVICES, digits_batches(64, seed=0), 3, dtype="float16",
                scaler=DynamicLossScaler(init_scale=2.0 ** 40, max_scale=2.0 ** 40))
    assert run.applied == [False, False, False]
    assert run.scales == [2.0 ** 40, 2.0 ** 39, 2.0 ** 38]
    for w, w0 in zip(run.master, start):
        np.testing.assert_array_equal(w, w0)


def test_float16_halves_the_bytes_sent():
    runs = {d: train(make_net, DEVICES, digits_batches(64, seed=0), 1, dtype=d)
            for d in ("float16", "float32")}
    assert runs["float16"].bytes_sent[0] * 2 == runs["float32"].bytes_sent[0]
    assert runs["float32"].bytes_sent[0] == train_bytes(runs["float32"].sizes, 2, "float32")
    # ring, 2 nodes: each sends half its array twice = the whole array, 4 bytes a number
    assert runs["float32"].bytes_sent[0] == 4 * sum(runs["float32"].sizes)


def test_refuses_bad_arguments():
    with pytest.raises(ValueError, match="dtype"):
        train(make_net, DEVICES, digits_batches(64), 1, dtype="bfloat16")
    with pytest.raises(ValueError, match="devices"):
        train(make_net, [], digits_batches(64), 1)


@pytest.mark.slow
def test_amp_probe_reports_what_runs():
    float16 = probe("float16")
    assert not float16.ran and "CuDNN" in float16.error
    bf16 = probe("bfloat16")
    # bfloat16 Dense runs on oneDNN's kernels only, and oneDNN has them on AVX-512 CPUs only:
    # elsewhere it finds no kernel ("could not create a primitive descriptor iterator")
    if not onednn_on():
        assert not bf16.ran and "Unsupported type" in bf16.error
    else:
        assert bf16.ran == bfloat16_kernels(), bf16.error
    if bf16.ran:
        assert bf16.output_dtype == "bfloat16" and bf16.grad_dtype == "float32"
        assert 0 < bf16.max_rel_diff < 0.05  # bfloat16 keeps 8 bits: about 1e-2 relative
    elif onednn_on():
        assert "could not create a primitive descriptor" in bf16.error


def test_bfloat16_kernels_follow_the_isa_cap_and_the_cpu(tmp_path):
    avx512 = tmp_path / "avx512"
    avx512.write_text("processor\t: 0\nflags\t\t: fpu sse avx2 avx512f avx512dq avx512bw "
                      "avx512vl avx512_bf16\n")
    avx2 = tmp_path / "avx2"
    avx2.write_text("processor\t: 0\nflags\t\t: fpu sse avx2 fma\n")
    arm = tmp_path / "arm"
    arm.write_text("processor\t: 0\nFeatures\t: fp asimd sve\n")
    assert bfloat16_kernels({}, avx512) and bfloat16_kernels({"DNNL_MAX_CPU_ISA": "avx512_core"}, avx512)
    assert not bfloat16_kernels({"DNNL_MAX_CPU_ISA": "AVX2"}, avx512)
    assert not bfloat16_kernels({"DNNL_MAX_CPU_ISA": "SSE41"}, avx512)
    assert not bfloat16_kernels({}, avx2) and not bfloat16_kernels({}, arm)
    assert not bfloat16_kernels({}, tmp_path / "missing")


def test_onednn_switch():
    assert not onednn_on({"MXNET_MKLDNN_ENABLED": "0"})


def test_the_amp_recipe_shown_scales_the_loss_inside_autograd_record():
    """amp.scale_loss outside autograd.record() raises; the recipe notebook 13 prints is
    GPU_SCRIPT's own code, whose scale_loss block sits inside the record block."""
    import ast

    from tutorial.memory.amp_probe import GPU_SCRIPT, recipe

    shown = recipe()
    assert shown in GPU_SCRIPT
    tree = ast.parse(shown)

    def withs(node):
        return [n for n in ast.walk(node) if isinstance(n, ast.With)]

    record = [w for w in withs(tree) if "autograd.record" in ast.unparse(w.items[0])]
    assert len(record) == 1
    inner = [w for w in withs(record[0]) if "scale_loss" in ast.unparse(w.items[0])]
    assert len(inner) == 1, "amp.scale_loss must be used inside autograd.record()"
    assert any("amp.init_trainer" in ast.unparse(n) for n in ast.walk(tree)
               if isinstance(n, ast.Expr))
