"""d2l's own MXNet functions as an independent reference for what the course builds.

*Dive into Deep Learning* (d2l.ai, package ``d2l`` 1.0.3) writes several of the course's
pieces for MXNet: ``split_batch`` (chapter "Training on Multiple GPUs", 13.5),
``try_all_gpus`` (5.6, "GPUs") and the ``Residual`` block (8.6, "ResNet"). The course's
checks compare its own versions with d2l's, so a d2l reader can go from one to the other.

d2l writes MXNet's NumPy interface (``mxnet.np``); the course writes ``mx.nd``. The
functions here run d2l's code inside MXNet's NumPy scope and hand back ``mx.nd`` arrays,
leaving the global setting as it was.

>>> import mxnet as mx
>>> X, y = mx.nd.arange(8).reshape((4, 2)), mx.nd.arange(4)
>>> [x.asnumpy().tolist() for x in split_batch(X, y, [mx.cpu(0), mx.cpu(1)])[0]]
[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]
"""

import contextlib

import mxnet as mx


def d2l():
    """d2l's MXNet module (``from d2l import mxnet as d2l``), or a clear error without it."""
    try:
        from d2l import mxnet as module
    except ImportError as e:
        raise ImportError("d2l is not installed here: `make lab` installs it (without its "
                          f"pinned dependencies); the import said: {e}") from None
    return module


@contextlib.contextmanager
def numpy_scope():
    """MXNet's NumPy semantics (shape, then array) on inside, restored on the way out."""
    with mx.util.np_shape(True), mx.util.np_array(True):
        yield


def split_batch(X, y, devices):
    """d2l's ``split_batch``: ``gluon.utils.split_and_load`` of ``X`` and of ``y``."""
    return d2l().split_batch(X, y, devices)


def try_all_gpus():
    """d2l's ``try_all_gpus``: ``[gpu(i) for every GPU MXNet counts]`` ([] without one)."""
    return d2l().try_all_gpus()


def residual_forward(ours, X, training=True):
    """d2l's ``Residual`` block given the weights of ``ours`` (a same-shape course block,
    :class:`tutorial.nn.resnet.Residual` with BatchNorm and no shortcut), run on ``X``.

    d2l's convolutions have biases where the course's have none (BatchNorm's beta does
    that job): they are set to zero, so both blocks compute the same function.
    """
    if ours.shortcut is not None:
        raise ValueError("d2l's shortcut has no BatchNorm after its 1x1 convolution: compare "
                         "a block that keeps its shape (stride 1, channels in = out)")
    theirs_of_ours = {"conv1": ours.body1[0], "bn1": ours.body1[1],
                      "conv2": ours.body2[0], "bn2": ours.body2[1]}
    channels = ours.body1[0].weight.shape[0]
    with numpy_scope():
        ref = d2l().Residual(channels)
        ref.initialize(ctx=X.context)
        ref(X.as_np_ndarray())                          # deferred shapes
        for name, layer in theirs_of_ours.items():
            for key, param in getattr(ref, name).collect_params().items():
                suffix = key.rsplit("_", 1)[-1] if "running" not in key else \
                    "running_" + key.rsplit("_", 1)[-1]
                source = [p for k, p in layer.collect_params().items() if k.endswith(suffix)]
                value = source[0].data(X.context).as_np_ndarray() if source else \
                    mx.np.zeros(param.shape, ctx=X.context)       # d2l's conv biases
                param.set_data(value)
        with (mx.autograd.train_mode() if training else mx.autograd.predict_mode()):
            out = ref(X.as_np_ndarray())
        return out.as_nd_ndarray()
