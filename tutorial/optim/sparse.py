"""Row-sparse gradients, e.g. from ``gluon.nn.Embedding(..., sparse_grad=True)``.

MXNet's ``sgd``, ``adam`` and ``lars`` take ``lazy_update`` (default True). With a
``row_sparse`` gradient a *lazy* update touches only the rows the gradient holds: their
weights, momentum and moments change (weight decay included), every other row stays as
it was. The *standard* update (``lazy_update=False``, and every optimizer without the
option) treats the gradient as dense with zeros in the missing rows, so weight decay and
momentum still move those rows. With a dense gradient the two are the same.

Ours run their chain on the dense gradient in both cases; a lazy update then puts back
the rows the gradient did not hold, in the weight and in every state buffer shaped like
it (:func:`lazy_rows`).

>>> import mxnet as mx
>>> w, m = mx.nd.ones((3, 2)), mx.nd.zeros((3, 2))
>>> g = mx.nd.sparse.row_sparse_array((mx.nd.ones((1, 2)), mx.nd.array([1])), shape=(3, 2))
>>> with lazy_rows(g, w, (m,)):
...     m[:] = 0.5                     # a chain that moves every row
...     w *= 2
>>> w[:, 0].asnumpy().tolist(), m[:, 0].asnumpy().tolist()
([1.0, 2.0, 1.0], [0.0, 0.5, 0.0])
"""

import contextlib

import mxnet as mx


def _buffers(state, shape):
    """Every NDArray of ``shape`` in a nested state (tuples, lists, scalars)."""
    if isinstance(state, mx.nd.NDArray):
        return [state] if state.shape == shape else []
    if isinstance(state, (tuple, list)):
        return [array for item in state for array in _buffers(item, shape)]
    return []


@contextlib.contextmanager
def lazy_rows(grad, weight, state):
    """Inside: update as if ``grad`` were dense. After: rows ``grad`` lacks are put back."""
    arrays = [weight] + _buffers(state, weight.shape)
    before = [array.copy() for array in arrays]
    yield
    held = mx.nd.zeros((weight.shape[0],), ctx=weight.context)
    if grad.indices.size:
        held[grad.indices] = 1
    for array, old in zip(arrays, before):
        array[:] = mx.nd.where(held.astype(array.dtype), array, old)
