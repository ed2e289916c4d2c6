"""The one bridge from a chain of transformations to MXNet's ``Optimizer`` API.

Every named optimizer is a subclass that only says which chain it is (``chain()``) and
checks its own hyperparameters; this class does what ``gluon.Trainer`` expects:
``create_state(index, weight)`` and an in-place ``update(index, weight, grad, state)``
that counts the update (``_update_count``: the first update of a parameter is t = 1,
and an ``lr_scheduler`` first sees ``num_update = 1``), looks up ``_get_lr`` /
``_get_wd`` (so ``lr_mult``, ``wd_mult`` and schedulers behave as in MXNet), and applies
``rescale_grad`` before the chain. ``clip_gradient`` is a piece of the chain because
algorithms disagree on whether weight decay is clipped too.

One update of parameter ``i`` is::

    t = number of updates of i so far, 1 at the first
    u = rescale_grad * grad              # a private copy (reused buffer): pieces may change it
    for piece in chain: u = piece(u)     # e.g. Clip, AddDecayedWeights, ScaleByLr, Trace
    weight += u

A ``row_sparse`` gradient is applied as a dense one, or lazily (only its rows) by the
optimizers that take ``lazy_update`` (``tutorial.optim.sparse``). The base keywords of
MXNet's Optimizer (``param_idx2name``, ``param_dict``, ``sym``, ``begin_num_update``,
``multi_precision``) work as there: MXNet's base class implements them, e.g. the float32
master copy of float16 weights in ``update_multi_precision``.

Updates run one parameter at a time (``aggregate_num = 0``); the chain's NDArray ops are
pushed to MXNet's engine as one bulk (``mx.engine.bulk``), which cuts the per-op overhead
that dominates for small arrays.

Asking for both ``learning_rate`` and ``lr_scheduler`` is an error here: MXNet would
silently overwrite the scheduler's ``base_lr`` with ``learning_rate`` (which breaks
warmup schedules).
"""

import mxnet as mx

from tutorial.optim.options import check_settings
from tutorial.optim.sparse import lazy_rows
from tutorial.optim.transforms import Step, scaled
from tutorial.validate import check_count


class ChainOptimizer(mx.optimizer.Optimizer):
    """Base class: an MXNet optimizer whose update is ``chain()`` applied to the gradient."""

    default_learning_rate = 0.01
    lazy_update = False     # sgd, adam and lars take lazy_update (default True), as MXNet's

    def __init__(self, learning_rate=None, lr_scheduler=None, wd=0.0, rescale_grad=1.0,
                 clip_gradient=None, begin_num_update=0, **kwargs):
        if learning_rate is not None and lr_scheduler is not None:
            raise ValueError(
                "Pass either learning_rate or lr_scheduler, not both: MXNet would overwrite "
                "the scheduler's base_lr with learning_rate and silently change its warmup. "
                "Put the learning rate inside the schedule instead.")
        if learning_rate is None and lr_scheduler is None:
            learning_rate = self.default_learning_rate
        check_settings(learning_rate=learning_rate, wd=wd, rescale_grad=rescale_grad,
                       clip_gradient=clip_gradient)
        check_count("begin_num_update", begin_num_update, low=0, what="updates done before")
        super().__init__(learning_rate=learning_rate, lr_scheduler=lr_scheduler, wd=wd,
                         rescale_grad=rescale_grad, clip_gradient=clip_gradient,
                         begin_num_update=begin_num_update, **kwargs)
        self.aggregate_num = 0          # the Updater hands us one parameter at a time
        self._workspace = {}            # (shape, dtype, context, role) -> reused array

    def chain(self):
        """The transformations of this optimizer, in order (see transforms.py)."""
        raise NotImplementedError

    def __getstate__(self):             # pickled (kvstore, save_states): no scratch arrays
        state = super().__getstate__()
        state.pop("_workspace", None)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self._workspace = {}

    def _buffer(self, like, role):
        """An array like ``like`` kept from one update to the next, for ``role`` (u, scratch).

        A fresh array of ~10 MB costs an allocation and its page faults on every update;
        parameters of one shape share the buffer (the engine orders their uses).
        """
        key = (like.shape, like.dtype, like.context, role)
        if key not in self._workspace:
            self._workspace[key] = mx.nd.empty(like.shape, like.context, dtype=like.dtype)
        return self._workspace[key]

    def workspace(self):
        """The arrays kept from one update to the next (two per shape, dtype and device
        updated: ``u`` and ``scratch``): memory the optimizer holds beside its state."""
        return list(self._workspace.values())

    def create_state(self, index, weight):
        return tuple(piece.init(weight) for piece in self.chain())

    def _param_name(self, index):
        if index in self.idx2name:
            return self.idx2name[index]
        if index in self.param_dict:
            return self.param_dict[index].name
        return str(index)

    def _step(self, index, weight, grad):
        self._update_count(index)
        return Step(lr=self._get_lr(index), wd=self._get_wd(index),
                    t=self._index_update_count[index], clip_gradient=self.clip_gradient,
                    rescale_grad=self.rescale_grad, raw_grad=grad,
                    name=self._param_name(index), scratch=self._buffer(grad, "scratch"))

    def update(self, index, weight, grad, state):
        if grad.stype != "default":                 # row_sparse: see tutorial/optim/sparse.py
            dense = grad.tostype("default")
            if not self.lazy_update:
                return self.update(index, weight, dense, state)
            with lazy_rows(grad, weight, state):
                return self.update(index, weight, dense, state)
        step = self._step(index, weight, grad)
        chain = self.chain()
        with mx.engine.bulk(4 * len(chain) + 2):    # one engine push for the chain's ops
            u = scaled(grad, self.rescale_grad, out=self._buffer(grad, "u"))   # privately
            for piece, piece_state in zip(chain, state):
                u = piece.update(u, piece_state, weight, step)
            weight += u
