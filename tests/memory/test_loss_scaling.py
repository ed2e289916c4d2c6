"""The dynamic loss scaler: a hand-worked schedule, MXNet's own amp scaler as reference."""

import types

import mxnet as mx
import pytest

from tutorial.memory.loss_scaling import DynamicLossScaler, ScalerState

T, F = True, False


def test_schedule_matches_the_hand_worked_table():
    scaler = DynamicLossScaler(init_scale=8.0, growth_interval=3, max_scale=32.0)
    flags = [T, T, T, F, T, T, T, T, T, T, T, T, T, F, F, F, F, F, F]
    # step:   1  2  3   4  5  6  7   8   9  10  11  12  13  14  15 16 17 18 19
    scales = [8, 8, 8, 16, 8, 8, 8, 16, 16, 16, 32, 32, 32, 32, 16, 8, 4, 2, 1]
    rows = scaler.schedule(flags)
    assert [r.scale for r in rows] == scales
    assert [r.applied for r in rows] == flags
    assert [r.next_scale for r in rows] == scales[1:] + [1]      # min_scale holds at 1
    assert [r.step for r in rows] == list(range(1, 20))


def test_an_overflow_resets_the_count_of_good_steps():
    scaler = DynamicLossScaler(init_scale=4.0, growth_interval=2)
    # without the reset, the good step before F would count and step 4 would double
    assert [r.next_scale for r in scaler.schedule([T, F, T, T])] == [4, 2, 2, 4]


def test_first_step_uses_the_initial_scale():
    assert DynamicLossScaler().schedule([T])[0].scale == 2.0 ** 16
    assert DynamicLossScaler().init() == ScalerState(65536.0, 0)


def _fake_params(finite):
    grad = mx.nd.array([1.0, float("nan") if not finite else 2.0])
    return [types.SimpleNamespace(_grad=[grad])]


@pytest.mark.parametrize("seq_len", [1, 3])
def test_equals_mxnet_amp_loss_scaler(seq_len):
    from mxnet.contrib.amp.loss_scaler import LossScaler

    reference = LossScaler()
    reference._scale_seq_len = seq_len
    ours = DynamicLossScaler(growth_interval=seq_len)
    flags = [T, T, T, F, T, T, F, F, T, T, T, T, T, T, T]
    state, seen = ours.init(), []
    for finite in flags:
        overflow = reference.has_overflow(_fake_params(finite))
        seen.append((reference.loss_scale, not overflow))    # scale used, applied
        state, applied = ours.update(state, finite)
        assert applied == (not overflow)
    assert [s for s, _ in seen] == [r.scale for r in ours.schedule(flags)]
    assert reference._next_loss_scale == state.scale


@pytest.mark.parametrize("kwargs, match", [
    ({"init_scale": 0.0}, "init_scale"), ({"growth_factor": 1.0}, "growth_factor"),
    ({"backoff_factor": 1.0}, "backoff_factor"), ({"growth_interval": 0}, "growth_interval"),
    ({"max_scale": 0.5}, "max_scale")])
def test_refuses_bad_settings(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DynamicLossScaler(**kwargs)
