"""G copies of one MLP, trained side by side in one hybridized call.

A learning-rate grid on a tiny MLP is dominated by Python and dispatch overhead, not by
arithmetic. Stacking the G models of a grid in one block runs them as one cached graph,
so a grid of six learning rates costs about three single runs. The models share nothing:
each has its own parameters, and its own loss, so one diverging model (NaN) leaves the
others untouched. All start from the same initial weights (``copy_first_to_all``), so in
a grid the learning rate is the only thing that differs.

>>> import mxnet as mx
>>> net = MLPFamily(3, in_units=6, hidden=(8,), classes=4)
>>> net.initialize(mx.init.Xavier())
>>> net(mx.nd.ones((5, 6))).shape          # (models, batch, classes)
(3, 5, 4)
>>> len(net.member_params(0))              # weight and bias of two layers
4
"""

from mxnet import gluon


class MLPFamily(gluon.HybridBlock):
    """``n_models`` independent MLPs ``in_units -> hidden... -> classes`` (ReLU between)."""

    def __init__(self, n_models, in_units, hidden=(128, 128), classes=10, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n_models, int) or n_models < 1:
            raise ValueError(f"n_models must be a whole number >= 1, got {n_models!r}")
        self.n_models = n_models
        self.members = []
        with self.name_scope():
            for g in range(n_models):
                net = gluon.nn.HybridSequential(prefix=f"m{g}_")
                with net.name_scope():
                    fan_in = in_units
                    for width in hidden:
                        net.add(gluon.nn.Dense(width, activation="relu", in_units=fan_in))
                        fan_in = width
                    net.add(gluon.nn.Dense(classes, in_units=fan_in))
                self.register_child(net, f"m{g}")
                self.members.append(net)

    def hybrid_forward(self, F, x):
        return F.stack(*[net(x) for net in self.members], axis=0)   # (G, B, classes)

    def member_params(self, g):
        """Parameters of model ``g`` in layer order (weight, bias, weight, bias, ...)."""
        return list(self.members[g].collect_params().values())

    def copy_first_to_all(self):
        """Give every model the initial weights of model 0."""
        first = self.member_params(0)
        for g in range(1, self.n_models):
            for src, dst in zip(first, self.member_params(g)):
                dst.set_data(src.data())
        return self
