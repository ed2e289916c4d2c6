"""Early stopping: watch a validation score, stop after ``patience`` epochs without
improvement, and put back the weights of the best epoch.

The notes list it among the cures for high validation error. Call :meth:`EarlyStopping.step`
once per epoch with the validation score; it copies the weights whenever the score
improves, and answers True when training should stop. :meth:`EarlyStopping.restore` then
loads the best copy, so the network you keep is the best one seen, not the last one.

Steps count from 1 (the first call is epoch 1). A score must beat the best by more than
``min_delta`` to count as an improvement.

>>> import mxnet as mx
>>> net = mx.gluon.nn.Dense(1, in_units=1)
>>> net.initialize(mx.init.Constant(0.0))
>>> stopper = EarlyStopping(patience=2)
>>> for epoch, score in enumerate([0.5, 0.7, 0.6, 0.65, 0.9], start=1):
...     net.weight.set_data(mx.nd.array([[epoch]]))          # stands in for a training epoch
...     if stopper.step(score, net):
...         break
>>> epoch, stopper.best_step, stopper.best_score
(4, 2, 0.7)
>>> stopper.restore(net)
>>> net.weight.data().asnumpy().tolist()                      # the weights of epoch 2
[[2.0]]
"""

import math


class EarlyStopping:
    """Patience-based stopping that keeps a copy of the best weights.

    mode: 'max' for scores that should grow (accuracy), 'min' for ones that should
    shrink (loss). State: ``best_score``, ``best_step`` (1-based, 0 before any step),
    ``steps`` seen, ``bad_steps`` since the last improvement, ``stopped``.
    """

    def __init__(self, patience=5, mode="max", min_delta=0.0):
        if not isinstance(patience, int) or patience < 1:
            raise ValueError(f"patience must be a whole number >= 1 (epochs to wait for an "
                             f"improvement), got {patience!r}")
        if mode not in ("max", "min"):
            raise ValueError(f"mode must be 'max' (e.g. accuracy) or 'min' (e.g. loss), "
                             f"got {mode!r}")
        if min_delta < 0:
            raise ValueError(f"min_delta must be >= 0, got {min_delta}")
        self.patience, self.mode, self.min_delta = patience, mode, float(min_delta)
        self.best_score = -math.inf if mode == "max" else math.inf
        self.best_step = 0
        self.steps = 0
        self.bad_steps = 0
        self.stopped = False
        self._best_weights = None

    def improves(self, score):
        """Whether ``score`` beats the best so far by more than ``min_delta``."""
        if self.mode == "max":
            return score > self.best_score + self.min_delta
        return score < self.best_score - self.min_delta

    def step(self, score, net):
        """Record one epoch's validation ``score``; True when training should stop."""
        score = float(score)
        if math.isnan(score):
            raise ValueError("the validation score is NaN: training has diverged; lower the "
                             "learning rate (or clip gradients) before using early stopping")
        self.steps += 1
        if self.improves(score):
            self.best_score, self.best_step, self.bad_steps = score, self.steps, 0
            self._best_weights = {name: p.data().copy()
                                  for name, p in net.collect_params().items()}
        else:
            self.bad_steps += 1
        self.stopped = self.bad_steps >= self.patience
        return self.stopped

    def restore(self, net):
        """Load the best weights seen into ``net`` (the network passed to :meth:`step`)."""
        if self._best_weights is None:
            raise RuntimeError("nothing to restore: call step(score, net) at least once first")
        params = net.collect_params()
        if set(params.keys()) != set(self._best_weights):
            raise ValueError("restore() got a different network from the one passed to "
                             "step(): its parameter names do not match")
        for name, p in params.items():
            p.set_data(self._best_weights[name])
