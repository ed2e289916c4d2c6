"""The optimizer race (grids, best-of-grid, table) and NetLoss (the sharpness of any net)
against independent references: the scaling rules by hand, a race cell equal to a direct
run, finite differences, and per-example losses."""

import mxnet as mx
import numpy as np
import pytest
from mxnet import gluon

from tutorial.largebatch.optimizer_race import CONTENDERS, grid_lrs, race, race_table
from tutorial.largebatch.phases import constant
from tutorial.largebatch.plan_runs import train_plan
from tutorial.largebatch.runs import Dataset
from tutorial.largebatch.sharpness import NetLoss, sharpness


def _toy(n=200, d=6, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int32) + (X[:, 1] > 0.5).astype(np.int32)
    return Dataset(X[:160], y[:160], X[160:], y[160:])


def _mlp():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(16, activation="relu"), gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier())
    return net


def test_grids_follow_each_contenders_rule():
    # batch 512 from base 32 is K = 16: linear x16, square root x4
    assert grid_lrs("sgd", 0.05, 32, 512, (0.5, 1, 2)) == pytest.approx((0.4, 0.8, 1.6))
    assert grid_lrs("lars", 1.0, 32, 512, (1,)) == pytest.approx((16.0,))
    assert grid_lrs("adam", 0.001, 32, 512, (1,)) == pytest.approx((0.004,))
    assert grid_lrs("lamb", 0.01, 32, 512, (0.5, 1)) == pytest.approx((0.02, 0.04))
    assert set(CONTENDERS) == {"sgd", "lars", "adam", "lamb"}


def test_race_keeps_the_fewest_steps_of_each_grid_and_equals_direct_runs():
    data = _toy()
    points = race(_mlp, data, [16, 160], {"sgd": 0.05, "lamb": 0.01}, base_batch=16,
                  multipliers=(0.5, 1.0, 2.0), target=0.8, max_epochs={16: 3, 160: 40})
    assert [(p.contender, p.batch_size) for p in points] == [
        ("sgd", 16), ("lamb", 16), ("sgd", 160), ("lamb", 160)]
    for p in points:
        reached = [s for _, s, _ in p.grid if s is not None]
        assert p.steps == (min(reached) if reached else None)
        assert [lr for lr, _, _ in p.grid] == list(grid_lrs(p.contender, *(
            (0.05,) if p.contender == "sgd" else (0.01,)), 16, p.batch_size, (0.5, 1.0, 2.0)))
    lamb_160 = points[-1]
    lr, steps, _ = lamb_160.grid[1]
    direct = train_plan(_mlp, data, constant(40, 160, lr), optimizer="lamb", optimizer_kw={},
                        target=0.8, stop_at_target=True)
    assert direct.steps_to_target == steps
    assert race_table(points) == {16: {"sgd": points[0].steps, "lamb": points[1].steps},
                                  160: {"sgd": points[2].steps, "lamb": points[3].steps}}


@pytest.mark.parametrize("kwargs, message", [
    ({"base_lrs": {"adamw": 0.01}}, "unknown contender"),
    ({"multipliers": (2.0, 1.0)}, "multipliers"),
    ({"max_epochs": {16: 2}}, "max_epochs"),
])
def test_race_rejects_bad_settings(kwargs, message):
    settings = dict(base_lrs={"sgd": 0.05}, base_batch=16, multipliers=(1.0,), max_epochs=1)
    settings.update(kwargs)
    with pytest.raises(ValueError, match=message):
        race(_mlp, _toy(), [16, 32], **settings)


def _bn_net():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(8), gluon.nn.BatchNorm(), gluon.nn.Activation("relu"),
            gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier())
    return net


def test_net_loss_gradient_matches_finite_differences_with_batchnorm():
    data = _toy()
    run, net = train_plan(_bn_net, data, constant(2, 16, 0.05), return_net=True)
    f = NetLoss(net, data.X_train[:50], data.y_train[:50])
    x = [w.astype(np.float64) for w in f.original]
    _, grads = f(x)
    rng, h = np.random.default_rng(0), 1e-3
    v = [rng.normal(size=w.shape) for w in x]
    norm = np.sqrt(sum(float(np.sum(d * d)) for d in v))
    v = [d / norm for d in v]                       # a unit direction
    plus, _ = f([w + h * d for w, d in zip(x, v)])
    minus, _ = f([w - h * d for w, d in zip(x, v)])
    directional = sum(float(np.sum(g * d)) for g, d in zip(grads, v))
    assert (plus - minus) / (2 * h) == pytest.approx(directional, rel=5e-2)


def test_net_loss_uses_running_statistics_so_each_example_counts_alone():
    # (the NetLoss objects of one net share its weights: each sets them before measuring)
    data = _toy()
    _, net = train_plan(_bn_net, data, constant(2, 16, 0.05), return_net=True)
    whole = NetLoss(net, data.X_train[:40], data.y_train[:40])
    together, _ = whole(whole.original)
    alone = [NetLoss(net, data.X_train[i:i + 1], data.y_train[i:i + 1]) for i in range(40)]
    assert together == pytest.approx(np.mean([f(f.original)[0] for f in alone]), rel=1e-5)
    phi = sharpness(whole.original, whole, eps=1e-3, steps=5)
    assert phi > 0 and whole(whole.original)[0] == pytest.approx(together, rel=1e-6)
    whole.restore()
    assert all(not b._kwargs["use_global_stats"] for b in whole.norms)


def test_outcome_tells_diverged_from_not_reached():
    from tutorial.largebatch.optimizer_race import RacePoint

    def point(steps, grid):
        return RacePoint("sgd", 64, steps, None, False, 0.5, grid)
    assert point(12, ((0.1, 12, False), (0.2, None, True))).outcome == "reached"
    assert point(None, ((0.1, None, True), (0.2, None, True))).outcome == "diverged"
    assert point(None, ((0.1, None, False), (0.2, None, True))).outcome == "not reached"


def test_extra_keywords_reach_the_contenders_optimizer():
    data, plan_kw = _toy(), dict(target=0.8, stop_at_target=True)
    extra = {"lars": {"bias_lr_mult": 0.01}}
    (point,) = race(_mlp, data, [160], {"lars": 1.0}, base_batch=16, multipliers=(1.0,),
                    target=0.8, max_epochs=20, extra_kw=extra)
    (lr, steps, diverged), = point.grid
    kw = {**CONTENDERS["lars"][1], "bias_lr_mult": 0.01}
    direct = train_plan(_mlp, data, constant(20, 160, lr), optimizer="lars", optimizer_kw=kw,
                        **plan_kw)
    plain = train_plan(_mlp, data, constant(20, 160, lr), optimizer="lars",
                       optimizer_kw=dict(CONTENDERS["lars"][1]), **plan_kw)
    assert (direct.steps_to_target, direct.diverged) == (steps, diverged)
    assert direct.train_loss != plain.train_loss      # the keyword changed the run
    with pytest.raises(ValueError, match="unknown contender"):
        race(_mlp, data, [160], {"lars": 1.0}, base_batch=16, multipliers=(1.0,),
             extra_kw={"larss": {}})
