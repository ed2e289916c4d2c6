"""Ours against independent NumPy references where MXNet 1.9.1 is buggy or has no such
optimizer, equivalences between optimizers, and convergence on a quadratic."""

import numpy as np
import mxnet as mx
import pytest

import tutorial.optim as topt
from tutorial.optim import schedules

SHAPES = [(5, 4), (3,)]          # two parameters: exposes state shared between them
STEPS = 30


def gradients(seed=0):
    rng = np.random.default_rng(seed)
    return [[rng.normal(size=s) for s in SHAPES] for _ in range(STEPS)]


def initial(seed=1):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s) for s in SHAPES]


def run_ours(optimizer, grads=None, steps=STEPS):
    """Apply ``optimizer.update`` to both parameters, step after step; returns numpy."""
    grads = gradients() if grads is None else grads
    weights = [mx.nd.array(w) for w in initial()]
    states = [optimizer.create_state(i, w) for i, w in enumerate(weights)]
    for step in grads[:steps]:
        for i, (w, g, s) in enumerate(zip(weights, step, states)):
            optimizer.update(i, w, mx.nd.array(g), s)
    return [w.asnumpy() for w in weights]


def run_reference(update, state0, steps=STEPS):
    """``update(t, w, g, state) -> (w, state)`` in float64, per parameter."""
    out = []
    for i, w in enumerate(initial()):
        state = state0(w)
        for t, step in enumerate(gradients()[:steps], start=1):
            w, state = update(t, w, step[i], state)
        out.append(w)
    return out


def assert_close(ours, reference, rtol=2e-5):
    for a, b in zip(ours, reference):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-6)


LR, MU, WD, RESCALE, CLIP = 0.1, 0.9, 0.05, 2.0, 1.5
KW = dict(learning_rate=LR, wd=WD, rescale_grad=RESCALE, clip_gradient=CLIP)


def clip(g):
    return np.clip(RESCALE * g, -CLIP, CLIP)


def test_nag_with_weight_decay_against_numpy():
    def update(t, w, g, m):
        u = clip(g) + WD * w
        m = MU * m - LR * u
        return w + MU * m - LR * u, m
    assert_close(run_ours(topt.create("nag", momentum=MU, **KW)),
                 run_reference(update, np.zeros_like))


def test_nadam_schedule_is_per_parameter_against_numpy():
    b1, b2, eps, decay, lr = 0.9, 0.999, 1e-8, 0.004, 0.01

    def mu(t):
        return b1 * (1 - 0.5 * 0.96 ** (t * decay))

    def update(t, w, g, state):
        m, v, product = state
        u = np.clip(RESCALE * g + WD * w, -CLIP, CLIP)
        product *= mu(t)
        m = b1 * m + (1 - b1) * u
        v = b2 * v + (1 - b2) * u * u
        m_bar = (1 - mu(t)) * u / (1 - product) + mu(t + 1) * m / (1 - product * mu(t + 1))
        return w - lr * m_bar / (np.sqrt(v / (1 - b2 ** t)) + eps), (m, v, product)
    assert_close(run_ours(topt.create("nadam", **dict(KW, learning_rate=lr))),
                 run_reference(update, lambda w: (0 * w, 0 * w, 1.0)))


def test_adamax_epsilon_against_numpy():
    """epsilon > 0 adds it to r (Keras's placement): w -= lr/(1-b1^t) * m / (r + eps)."""
    b1, b2, eps, lr = 0.9, 0.999, 1e-3, 0.01

    def update(t, w, g, state):
        m, r = state
        u = np.clip(RESCALE * g + WD * w, -CLIP, CLIP)
        m = b1 * m + (1 - b1) * u
        r = np.maximum(b2 * r, np.abs(u))
        return w - lr / (1 - b1 ** t) * m / (r + eps), (m, r)
    assert_close(run_ours(topt.create("adamax", epsilon=eps, **dict(KW, learning_rate=lr))),
                 run_reference(update, lambda w: (0 * w, 0 * w)))


def test_adamax_divides_zero_by_zero_unless_given_epsilon():
    """A coordinate whose first u is exactly 0 (w = 0, g = 0): MXNet's Adamax and ours with
    the default epsilon=0 compute 0/0; with epsilon > 0 that coordinate does not move."""
    def step(optimizer):
        w = mx.nd.array([0.0, 1.0])
        optimizer.update(0, w, mx.nd.array([0.0, 0.5]), optimizer.create_state(0, w))
        return w.asnumpy()
    for optimizer in (mx.optimizer.create("adamax", wd=0.1), topt.create("adamax", wd=0.1)):
        w = step(optimizer)
        assert np.isnan(w[0]) and np.isfinite(w[1])
    w = step(topt.create("adamax", wd=0.1, epsilon=1e-8))
    assert w[0] == 0.0 and np.isfinite(w[1])
    np.testing.assert_allclose(w[1], step(mx.optimizer.create("adamax", wd=0.1))[1], rtol=1e-6)


def test_dcasgd_with_momentum_against_numpy():
    lamda = 0.5

    def update(t, w, g, state):
        m, previous = state
        u = clip(g)
        d = u + lamda * u * u * (w - previous) + WD * w
        m = MU * m - LR * d
        return w + m, (m, w)
    assert_close(run_ours(topt.create("dcasgd", momentum=MU, lamda=lamda, **KW)),
                 run_reference(update, lambda w: (0 * w, w)))


def test_local_adagrad_window_against_numpy():
    tau, eps = 4, 1e-7

    def update(t, w, g, recent):
        u = clip(g)
        recent = (recent + [u * u])[-tau:]
        return w - LR * (u / np.sqrt(sum(recent) + eps) + WD * w), recent
    assert_close(run_ours(topt.create("local_adagrad", tau=tau, **KW)),
                 run_reference(update, lambda w: []))


@pytest.mark.parametrize("bias_lr_mult", [1.0, 0.0125])
def test_lars_trust_ratio_and_exclusions_against_numpy(bias_lr_mult):
    """Weights get the trust ratio; the bias, left out, steps at lr * bias_lr_mult."""
    eta, names = 0.02, {0: "net_dense0_weight", 1: "net_dense0_bias"}

    def update(t, w, g, m):
        is_weight = w.ndim == 2            # given param_idx2name, MXNet's base class zeroes
        wd = WD if is_weight else 0.0      # wd for names not ending in _weight or _gamma
        u = clip(g) + wd * w
        w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(RESCALE * g)
        trust = eta * w_norm / (g_norm + wd * w_norm) if is_weight else bias_lr_mult
        m = MU * m - LR * trust * u
        return w + m, m
    ours = run_ours(topt.create("lars", momentum=MU, eta=eta, param_idx2name=names,
                                bias_lr_mult=bias_lr_mult, **KW))
    assert_close(ours, run_reference(update, np.zeros_like))


def test_local_adagrad_with_long_window_is_adagrad():
    a = run_ours(topt.create("local_adagrad", tau=STEPS, **KW))
    b = run_ours(topt.create("adagrad", **KW))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    c = run_ours(topt.create("local_adagrad", tau=3, **KW))
    assert not np.allclose(c[0], b[0], rtol=1e-3), "a short window must change the result"


def test_nag_without_momentum_is_sgd_and_momentum_is_sgd_with_momentum():
    for x, y in zip(run_ours(topt.create("nag", **KW)), run_ours(topt.create("sgd", **KW))):
        np.testing.assert_allclose(x, y, rtol=1e-6)
    for x, y in zip(run_ours(topt.create("momentum", momentum=0.8, **KW)),
                    run_ours(topt.create("sgd", momentum=0.8, **KW))):
        np.testing.assert_array_equal(x, y)


def test_adam_without_first_moment_is_rmsprop():
    """Adam with beta1 = 0, epsilon = 0 and lr / sqrt(1 - beta2^t) is RMSProp(gamma1=beta2)."""
    beta2, kw = 0.99, dict(rescale_grad=RESCALE, clip_gradient=CLIP)
    corrected = schedules.as_lr_scheduler(lambda step: LR / np.sqrt(1 - beta2 ** (step + 1)))
    adam = topt.create("adam", beta1=0.0, beta2=beta2, epsilon=0.0, lr_scheduler=corrected, **kw)
    rmsprop = topt.create("rmsprop", gamma1=beta2, epsilon=0.0, learning_rate=LR, **kw)
    for x, y in zip(run_ours(adam), run_ours(rmsprop)):
        np.testing.assert_allclose(x, y, rtol=1e-5)


def test_deck_momentum_clip_step_is_momentum_optimizer():
    opt = topt.create("momentum", momentum=MU, **dict(KW, rescale_grad=1.0))
    ours = run_ours(opt)
    deck = []
    for i, w0 in enumerate(initial()):
        w, s = mx.nd.array(w0), mx.nd.zeros(w0.shape)
        for step in gradients():
            topt.clipping.momentum_clip_step(w, mx.nd.array(step[i]), s, LR, MU, WD, CLIP)
        deck.append(w.asnumpy())
    assert_close(ours, deck, rtol=1e-6)


def test_sgld_samples_the_gibbs_distribution():
    """For f(w) = a·w²/2, Langevin dynamics samples N(0, 1/a) (here 10,000 chains)."""
    a, lr = 4.0, 0.01
    mx.random.seed(3)
    opt = topt.create("sgld", learning_rate=lr)
    w = mx.nd.zeros(10000)
    state = opt.create_state(0, w)
    for _ in range(600):
        opt.update(0, w, a * w, state)
    variance = float((w ** 2).mean().asscalar())
    expected = 1 / (a * (1 - lr * a / 4))        # exact for the discretised chain
    assert abs(variance - expected) / expected < 0.05


CONVERGENCE = {
    "sgd": dict(learning_rate=0.05), "momentum": dict(learning_rate=0.02),
    "nag": dict(learning_rate=0.02, momentum=0.9), "adagrad": dict(learning_rate=0.5),
    "local_adagrad": dict(learning_rate=0.05, tau=10), "rmsprop": dict(learning_rate=0.02),
    "adadelta": dict(learning_rate=1.0, rho=0.99, epsilon=1e-3), "adam": dict(learning_rate=0.05),
    "adamax": dict(learning_rate=0.05), "nadam": dict(learning_rate=0.05),
    "ftrl": dict(learning_rate=1.0, lamda1=0.0), "signum": dict(learning_rate=0.01),
    "dcasgd": dict(learning_rate=0.05, momentum=0.5), "lars": dict(learning_rate=20.0, eta=0.01),
    "lamb": dict(learning_rate=0.02),
}


@pytest.mark.parametrize("name", list(CONVERGENCE))
def test_every_optimizer_descends_an_ill_conditioned_quadratic(name):
    curvature = mx.nd.array([1.0, 10.0])
    opt, w = topt.create(name, **CONVERGENCE[name]), mx.nd.array([1.0, 1.0])
    state = opt.create_state(0, w)

    def loss():
        return float((0.5 * curvature * w * w).sum().asscalar())
    start = loss()
    for _ in range(300):
        opt.update(0, w, curvature * w, state)
    assert loss() < 0.01 * start, "%s: loss %.3g -> %.3g" % (name, start, loss())


def test_every_name_is_covered_by_the_convergence_table():
    assert set(CONVERGENCE) | {"sgld"} == set(topt.names())


def test_lars_given_names_decays_only_weights_like_mxnet():
    names = {0: "a_weight", 1: "a_gamma", 2: "a_bias", 3: "a_beta"}
    ours = topt.create("lars", wd=0.1, param_idx2name=names)
    theirs = mx.optimizer.create("lars", wd=0.1, param_idx2name=names)
    assert [ours._get_wd(i) for i in names] == [theirs._get_wd(i) for i in names]
    assert [ours._get_wd(i) for i in names] == [0.1, 0.0, 0.0, 0.0]


def test_the_documented_mxnet_bugs_are_real():
    """Why NAG (wd > 0) and Nadam are checked against NumPy: MXNet's own drift from ours."""
    for name, kw in [("nag", dict(KW, momentum=MU)), ("nadam", dict(KW, learning_rate=0.01))]:
        ours, theirs = run_ours(topt.create(name, **kw)), run_ours(mx.optimizer.create(name, **kw))
        assert not np.allclose(ours[0], theirs[0], rtol=1e-3), name
    with pytest.raises(ValueError, match="ambiguous"):
        run_ours(mx.optimizer.create("dcasgd", momentum=MU, **KW))


@pytest.mark.parametrize("name", ["sgd", "momentum"])
def test_momentum_correction_equals_lr_outside_the_buffer(name):
    """Goyal et al.'s correction: with it, lr inside the buffer (MXNet's form) steps exactly
    like v = mu*v + u, w -= lr_t*v (lr outside) across lr changes; without it, it does not."""
    schedule = schedules.piecewise_constant([10, 20], [0.1, 0.4, 0.05])

    def reference(t, w, g, v):
        v = MU * v + clip(g) + WD * w
        return w - schedule(t - 1) * v, v

    expected = run_reference(reference, np.zeros_like)
    kw = dict(KW, momentum=MU, lr_scheduler=schedules.as_lr_scheduler(schedule))
    del kw["learning_rate"]
    assert_close(run_ours(topt.create(name, momentum_correction=True, **kw)), expected)
    kw["lr_scheduler"] = schedules.as_lr_scheduler(schedule)
    uncorrected = run_ours(topt.create(name, **kw))
    assert not np.allclose(uncorrected[0], expected[0], rtol=1e-3)


def test_lamb_can_leave_biases_out_of_the_trust_ratio():
    """exclude_bias_and_norm: the bias steps as plain Adam (ratio 1), the weight as LAMB.

    Given param_idx2name, MXNet's Optimizer base class already sets wd_mult = 0 for names
    that end in neither _weight nor _gamma, so the bias gets no weight decay either."""
    B1, B2, EPS = 0.9, 0.999, 1e-6

    def reference(scaled):
        wd = WD if scaled else 0.0
        def update(t, w, g, state):
            m, v = state
            g = clip(g)
            m, v = B1 * m + (1 - B1) * g, B2 * v + (1 - B2) * g * g
            u = (m / (1 - B1 ** t)) / (np.sqrt(v / (1 - B2 ** t)) + EPS) + wd * w
            ratio = np.linalg.norm(w) / np.linalg.norm(u) if scaled else 1.0
            return w - LR * ratio * u, (m, v)
        return update

    names = {0: "dense0_weight", 1: "dense0_bias"}
    kw = dict(KW, beta1=B1, beta2=B2, epsilon=EPS, param_idx2name=names)
    ours = run_ours(topt.create("lamb", exclude_bias_and_norm=True, **kw))
    zeros = lambda w: (np.zeros_like(w), np.zeros_like(w))   # noqa: E731
    weight, _ = run_reference(reference(True), zeros)
    _, bias = run_reference(reference(False), zeros)
    assert_close(ours, [weight, bias], rtol=1e-4)
    everything_scaled = run_ours(topt.create("lamb", **kw))
    assert not np.allclose(everything_scaled[1], bias, rtol=1e-3)
