"""The asynchronous-SGD simulator against hand-worked tables and an independent NumPy SGD."""

import numpy as np
import pytest

from tutorial.data import synthetic_regression
from tutorial.parallel.async_sgd import simulate, staleness_aware_lr
from tutorial.parallel.least_squares import least_squares, sparse_least_squares

# f(w) = w**2 / 2 (gradient w), w0 = 1, lr = 0.5, two workers taking 1 and 2 time units.
# Worked by hand: both pull w = 1 at t = 0 (version 0) ...
#   t=1 worker 0 pushes g=1 (read v0, now v0: tau 0): w = 1 - .5*1 = .5; it pulls .5 (v1)
#   t=2 worker 0 (tie, lower index first) g=.5, tau 0: w = .25; pulls .25 (v2)
#   t=2 worker 1 pushes g=1 read at v0, now v2: tau 2: w = .25 - .5 = -.25; pulls (v3)
#   t=3 worker 0 g=.25 read at v2, now v3: tau 1: w = -.375 (v4)
#   t=4 worker 0 g=-.375, tau 0: w = -.1875 (v5); worker 1 g=-.25 read v3, tau 2: w=-.0625
HAND_CONSTANT = [  # time, worker, staleness, lr, w after
    (1, 0, 0, .5, .5), (2, 0, 0, .5, .25), (2, 1, 2, .5, -.25),
    (3, 0, 1, .5, -.375), (4, 0, 0, .5, -.1875), (4, 1, 2, .5, -.0625)]
# Same run, lr / max(1, tau): update 3 uses .25 so w = .25 - .25*1 = 0, and so on.
HAND_STALENESS = [
    (1, 0, 0, .5, .5), (2, 0, 0, .5, .25), (2, 1, 2, .25, 0.0),
    (3, 0, 1, .5, -.125), (4, 0, 0, .5, -.0625), (4, 1, 2, .25, -.0625)]


def one_dimensional():
    return least_squares([[1.0]], [0.0], w0=[1.0])


@pytest.mark.parametrize("rule, table", [("constant", HAND_CONSTANT),
                                         ("staleness", HAND_STALENESS)])
def test_matches_the_hand_worked_table(rule, table):
    t = simulate(one_dimensional(), durations=[1, 2], lr=0.5, updates=6, lr_rule=rule)
    got = list(zip(t.time, t.worker, t.staleness, t.lr, t.weights[:, 0]))
    assert got == table
    assert t.loss.tolist() == [0.5 * w ** 2 for *_, w in table]


def test_staleness_aware_lr_follows_zhang_et_al():
    assert [staleness_aware_lr(0.1, tau) for tau in (0, 1, 2, 10)] == [0.1, 0.1, 0.05, 0.01]


def numpy_sgd(X, y, lr, steps, batch_size, seed):
    """Plain minibatch SGD on mean squared error / 2, written independently."""
    rng = np.random.default_rng(seed)
    w, out, order, pos = np.zeros(X.shape[1]), [], rng.permutation(len(y)), 0
    for _ in range(steps):
        if pos + batch_size > len(y):
            order, pos = rng.permutation(len(y)), 0
        rows = order[pos:pos + batch_size]
        pos += batch_size
        Xb, yb = X[rows].astype(np.float64), y[rows].astype(np.float64)
        w = w - lr * (Xb.T @ (Xb @ w - yb) / batch_size)
        out.append(w)
    return np.array(out)


def regression():
    X, y, _, _ = synthetic_regression(100, w=[2.0, -3.4, 1.0], b=0.0, noise=0.1, seed=3)
    return X, y


def test_zero_staleness_is_sync_sgd_exactly():
    X, y = regression()
    p = least_squares(X, y)
    one_async = simulate(p, [1.0], lr=0.1, updates=40, batch_size=8, jitter=0.7, seed=5)
    one_sync = simulate(p, [1.0], lr=0.1, updates=40, batch_size=8, mode="sync", seed=5)
    assert one_async.staleness.max() == 0
    assert np.array_equal(one_async.weights, one_sync.weights)
    assert np.array_equal(one_async.weights, numpy_sgd(X, y, 0.1, 40, 8, seed=5))


def test_sync_rounds_equal_sgd_on_the_combined_batch():
    X, y = regression()
    X, y = X[:96], y[:96]       # 96 = 8 rounds of 12: both draw the same rows every epoch
    sync = simulate(least_squares(X, y), [1.0, 1.0, 1.0], lr=0.1, updates=20, batch_size=4,
                    mode="sync", seed=2)
    np.testing.assert_allclose(sync.weights, numpy_sgd(X, y, 0.1, 20, 12, seed=2), rtol=1e-12)


def test_round_lasts_as_long_as_the_straggler():
    X, y = regression()
    sync = simulate(least_squares(X, y), [1.0, 1.0, 4.0], lr=0.1, updates=3, mode="sync",
                    comm_time=0.5)
    assert sync.time.tolist() == [4.5, 9.0, 13.5]
    assert sync.gradients == 9


def test_equal_workers_take_turns_with_staleness_w_minus_1():
    X, y = regression()
    t = simulate(least_squares(X, y), [1.0] * 4, lr=0.01, updates=12)
    assert t.staleness.tolist() == [0, 1, 2, 3] + [3] * 8
    assert t.worker.tolist() == [0, 1, 2, 3] * 3


def test_downpour_with_one_replica_is_serial_sgd():
    X, y = regression()
    p = least_squares(X, y)
    downpour = simulate(p, [1.0], lr=0.1, updates=5, batch_size=4, local_steps=3, seed=1)
    serial = numpy_sgd(X, y, 0.1, 15, 4, seed=1)
    np.testing.assert_allclose(downpour.weights, serial[2::3], rtol=1e-12)
    assert downpour.gradients == 18     # 5 pushes done, and the 6th replica round started


def test_hogwild_conflicts_only_where_supports_overlap():
    one_hot = least_squares(np.eye(50), np.ones(50))        # each row its own coordinate
    t = simulate(one_hot, [1.0] * 4, lr=0.5, updates=40, batch_size=1, seed=0)
    # 44 gradients (40 pushed, 4 in flight) within one epoch of 50 rows: all on different
    # coordinates, so stale (tau = 3) yet never a conflict
    assert t.staleness[3:].min() == 3 and t.conflicts.max() == 0.0
    dense = sparse_least_squares(50, 5, 5, seed=0)
    t = simulate(dense, [1.0] * 4, lr=0.1, updates=20, batch_size=1, seed=0)
    assert t.conflicts.tolist() == [float(tau > 0) for tau in t.staleness]


def test_staleness_aware_lr_rescues_a_diverging_dense_run():
    p = sparse_least_squares(500, 20, 20, seed=0)
    plain = simulate(p, [1.0] * 16, lr=0.3, updates=1500, batch_size=1, jitter=0.3, seed=0)
    aware = simulate(p, [1.0] * 16, lr=0.3, updates=1500, batch_size=1, jitter=0.3, seed=0,
                     lr_rule="staleness")
    assert plain.diverged and len(plain.loss) < 1500
    assert not aware.diverged and aware.loss[-1] < 0.2 * aware.loss[0]


def test_runs_are_reproducible_and_seeds_matter():
    X, y = regression()
    p = least_squares(X, y)
    a, b, c = (simulate(p, [1.0, 2.0, 3.0], lr=0.05, updates=30, batch_size=4, jitter=0.5,
                        seed=s) for s in (7, 7, 8))
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.time, b.time)
    assert not np.array_equal(a.time, c.time)


def test_time_to_loss():
    t = simulate(one_dimensional(), durations=[1, 2], lr=0.5, updates=6)
    assert t.time_to_loss(0.5 * 0.25 ** 2) == 2.0 and t.time_to_loss(0.0) == float("inf")


@pytest.mark.parametrize("kwargs, message", [
    ({"mode": "bulk"}, "mode must be one of"),
    ({"lr_rule": "inverse"}, "lr_rule must be one of"),
    ({"durations": []}, "one positive compute time per worker"),
    ({"durations": [1, 0]}, r"durations\[1\]=0 is out of range: use a number in \(0.0, inf\)"),
    ({"durations": [1, float("nan")]}, r"durations\[1\]=nan is out of range"),
    ({"updates": 0}, "updates must be a whole number >= 1"),
    ({"local_steps": 1.5}, "local_steps must be a whole number >= 1"),
    ({"lr": -0.1}, r"lr=-0.1 is out of range: use a number in \(0.0, inf\)"),
    ({"lr": float("inf")}, r"lr=inf is out of range: use a finite number"),
    ({"jitter": -1.0}, r"jitter=-1.0 is out of range"),
    ({"batch_size": 2}, "batch_size=2 is larger than the problem's 1 rows: use a batch_size "
                        "from 1 to 1"),
])
def test_bad_arguments_are_explained(kwargs, message):
    args = dict(durations=[1, 2], lr=0.5, updates=3)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        simulate(one_dimensional(), **args)


def test_sparse_problem_rejects_impossible_sparsity():
    with pytest.raises(ValueError, match="nonzeros_per_row must be from 1 to d=5"):
        sparse_least_squares(10, 5, 6)
