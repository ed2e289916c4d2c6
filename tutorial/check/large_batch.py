"""Exercise checker for notebook 08_large_batch: the LARS trust ratio of one layer.

The learner writes ``trust_ratio(w, g, eta, wd, name)``: the factor by which LARS scales
the learning rate of the parameter ``name`` with weights ``w`` and gradient ``g``. The
reference is the library's own LARS step, :class:`tutorial.optim.trust_ratio.LarsTrustRatio`
(float32 norms on MXNet NDArrays, so answers are compared to a relative 1e-5). Three
stages, each with its own message: the ratio of an ordinary weight (typical mistakes as
data), the parameters LARS leaves out (biases, batch-norm gamma and beta), and layers
whose weights or gradient are all zero. An answer that calls a LARS the notebook can reach
(the library's, through ``from tutorial import optim``, or MXNet's ``mx.optimizer.LARS``
and ``mx.nd.multi_lars``) is refused (:mod:`tutorial.check.own_work`).

>>> import numpy as np
>>> def trust_ratio(w, g, eta, wd, name):
...     w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g)
...     if name.endswith(("bias", "gamma", "beta")) or w_norm == 0 or g_norm == 0:
...         return 1.0
...     return eta * w_norm / (g_norm + wd * w_norm)
>>> print(check_trust_ratio(trust_ratio))
Correct: your trust ratio equals the library's LARS on 9 parameters, biases, batch-norm and all-zero layers included.
>>> print(check_trust_ratio(library_ratio).text[:54])        # the reference itself
Not yet: your trust_ratio calls the library's referenc
"""

import mxnet as mx
import numpy as np

from tutorial.check.answers import Wrong, as_number, call
from tutorial.check.feedback import Verdict, checker
from tutorial.check.mistakes import Mistake, first_match, same
from tutorial.check.own_work import refuse_if_called, watching
from tutorial.optim.transforms import Step
from tutorial.optim.trust_ratio import LarsTrustRatio

# Every route to a LARS from the notebook: the library's step, MXNet's optimizer and its operator
REFERENCES = (LarsTrustRatio.update, mx.optimizer.LARS._get_lars, mx.optimizer.LARS._l2norm,
              mx.nd.multi_lars)
RTOL = 1e-5       # the library's norms are float32
ZERO_RULE = ("When the weights or the gradient of a layer are all 0 the ratio means nothing "
             "(a layer at 0 would never move), and LARS, as MXNet's, uses the factor 1")


def _case(name, shape, eta, wd, seed, w_scale=0.5, g_scale=0.02):
    rng = np.random.default_rng(seed)
    return name, w_scale * rng.normal(size=shape), g_scale * rng.normal(size=shape), eta, wd


WEIGHTS = (_case("dense0_weight", (8, 4), 0.001, 5e-4, 0),
           _case("dense1_weight", (16,), 0.02, 0.0, 1, g_scale=1.0),
           _case("conv0_weight", (3, 3, 2, 2), 0.001, 0.05, 2, w_scale=2.0, g_scale=0.5))
LEFT_OUT = (_case("dense0_bias", (4,), 0.001, 5e-4, 3),
            _case("batchnorm0_gamma", (4,), 0.001, 5e-4, 4),
            _case("batchnorm0_beta", (4,), 0.001, 5e-4, 5))
ZEROS = (_case("dense2_weight", (4, 4), 0.001, 5e-4, 6, w_scale=0.0),
         _case("dense3_weight", (4, 4), 0.001, 0.0, 7, g_scale=0.0),
         _case("dense4_weight", (4, 4), 0.001, 5e-4, 8, g_scale=0.0))


def _norms(w, g):
    return np.linalg.norm(w), np.linalg.norm(g)


MISTAKES = (   # on ordinary weights only; each (w, g, eta, wd, name)
    Mistake("upside down", "the ratio grows with the weights' norm and shrinks with the "
                           "gradient's: ||w|| belongs in the numerator.",
            lambda w, g, eta, wd, name: eta * (_norms(w, g)[1] + wd * _norms(w, g)[0])
            / _norms(w, g)[0]),
    Mistake("squared norms", "use the norms ||w|| and ||g|| themselves, not their squares.",
            lambda w, g, eta, wd, name: eta * np.sum(w ** 2) / (np.sum(g ** 2)
                                                                + wd * np.sum(w ** 2))),
    Mistake("eta missing", "the trust coefficient eta scales the ratio (0.001 in You et al.).",
            lambda w, g, eta, wd, name: _norms(w, g)[0] / (_norms(w, g)[1]
                                                           + wd * _norms(w, g)[0])),
    Mistake("weight decay left out", "with weight decay the step is lr * (g + wd w), so the "
                                     "denominator has a term for wd too.",
            lambda w, g, eta, wd, name: eta * _norms(w, g)[0] / _norms(w, g)[1]),
    Mistake("weight decay without the norm", "the decay term in the denominator is the norm "
                                             "of wd * w, not wd alone.",
            lambda w, g, eta, wd, name: eta * _norms(w, g)[0] / (_norms(w, g)[1] + wd)),
    Mistake("not the Euclidean norm", "||.|| is the square root of the sum of squares (one "
                                      "number per layer), not the sum of absolute values.",
            lambda w, g, eta, wd, name: eta * np.abs(w).sum() / (np.abs(g).sum()
                                                                 + wd * np.abs(w).sum())),
)


def library_ratio(w, g, eta, wd, name):
    """The ratio the library's LARS applies (1 for bias/gamma/beta and all-zero arrays)."""
    step = Step(lr=1.0, wd=wd, t=1, raw_grad=mx.nd.array(g), name=name)
    out = LarsTrustRatio(eta=eta, eps=0.0).update(mx.nd.ones((1,)), (), mx.nd.array(w), step)
    return float(out.asscalar())


def _answers(trust_ratio, cases):
    """The learner's numbers for ``cases``; refused if the learner called a LARS."""
    out = []
    with watching(*REFERENCES) as seen:
        for name, w, g, eta, wd in cases:
            label = f"trust_ratio(w of shape {w.shape}, g, eta={eta}, wd={wd}, name={name!r})"
            out.append(as_number(call(trust_ratio, label, w.copy(), g.copy(), eta, wd, name),
                                 label))
    refuse_if_called(seen, "trust_ratio")
    return out


def _first_wrong(trust_ratio, cases):
    """(name, what you returned, what LARS uses) for the first case that differs, or None."""
    for case, got in zip(cases, _answers(trust_ratio, cases)):
        want = library_ratio(*case[1:], case[0])
        if not same(got, want, rtol=RTOL, atol=0):
            return case[0], got, want
    return None


def _guarded(trust_ratio, cases, hint):
    """``_first_wrong``, with ``hint`` added when the learner's code fails on these cases."""
    try:
        return _first_wrong(trust_ratio, cases)
    except Wrong as wrong:
        raise Wrong(f"{wrong}. {hint}") from None


@checker("trust_ratio", "trust_ratio(w, g, eta, wd, name) with NumPy arrays w, g of one "
                        "shape, floats eta, wd and a parameter name, returning one number")
def check_trust_ratio(trust_ratio):
    """``trust_ratio(w, g, eta, wd, name)``: the LARS factor of one parameter array."""
    wrong = _first_wrong(trust_ratio, WEIGHTS)
    if wrong:
        got = _answers(trust_ratio, WEIGHTS)
        mistake = first_match(MISTAKES, got, lambda f: [f(w, g, eta, wd, name)
                                                        for name, w, g, eta, wd in WEIGHTS])
        if mistake:
            return mistake.verdict()
        raise Wrong(f"for {wrong[0]} you return {wrong[1]:.6g}; LARS uses {wrong[2]:.6g}. "
                    f"Compare your code with the deck's formula term by term")
    wrong = _guarded(trust_ratio, LEFT_OUT, "Biases and batch-norm parameters are left out.")
    if wrong:
        raise Wrong(f"you scale {wrong[0]} by {wrong[1]:.6g}: You et al. leave biases and "
                    f"batch-norm gamma and beta out of the trust ratio (their norms can be "
                    f"0 or tiny), so their factor is 1")
    wrong = _guarded(trust_ratio, ZEROS, ZERO_RULE)
    if wrong:
        raise Wrong(f"for {wrong[0]} you return {wrong[1]:.6g}. {ZERO_RULE}")
    count = len(WEIGHTS + LEFT_OUT + ZEROS)
    return Verdict(True, f"Correct: your trust ratio equals the library's LARS on {count} "
                         f"parameters, biases, batch-norm and all-zero layers included.")
