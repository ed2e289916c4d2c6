"""Large-batch training, measured: the machinery behind notebook ``08_large_batch``.

One idea per file:

- ``mlp_family``      G copies of one MLP trained side by side (one per learning rate)
- ``runs``            train a family to target validation accuracies, spotting divergence
- ``sweep``           steps to target against batch size, each at its best learning rate
- ``critical_batch``  fit S = S_min (1 + B_crit / B) (Shallue et al. 2018, McCandlish et al. 2018)
- ``recipes``         fixed lr vs linear scaling vs linear scaling with warmup
- ``noise_scale``     the simple gradient noise scale B_simple = tr(Sigma) / |G|^2
- ``sharpness``       Keskar et al.'s sharpness, the top Hessian eigenvalue, 1-D interpolation
- ``minima``          small- and large-batch solutions trained, measured and interpolated
- ``imagenet``        the lecture's ImageNet tables and their derived columns
- ``experiments``     the notebook's settings and sizes, shared with its checks
- ``plots``           drawing only: every figure of the notebook from computed results

The learning-rate recipes themselves (linear and square-root scaling, warmup, Goyal's
momentum correction, LARS/LAMB set up with parameter names) are in
:mod:`tutorial.optim.scaling`.
"""
