"""Large-batch training, measured: the machinery behind notebooks ``08_large_batch`` and
``11_large_batch_cnn``.

One idea per file:

- ``mlp_family``      G copies of one MLP trained side by side (one per learning rate)
- ``runs``            train a family to target validation accuracies, spotting divergence
- ``sweep``           steps to target against batch size, each at its best learning rate
- ``critical_batch``  fit S = S_min (1 + B_crit / B) (Shallue et al. 2018, McCandlish et al. 2018)
- ``recipes``         fixed lr vs linear scaling vs warmup, with and without momentum correction
- ``phases``          training plans as data: warm start, lr decay, batch growth
- ``plan_runs``       train any one Gluon net (a CNN too) through a plan
- ``plan_comparison`` plans against their baselines: steps, final accuracy, sharpness
- ``optimizer_race``  LAMB vs LARS vs Adam vs SGD, each on its scaling rule and grid
- ``recipe_settings`` notebook 11's settings and sizes for those recipes
- ``noise_scale``     the simple gradient noise scale B_simple = tr(Sigma) / |G|^2
- ``sharpness``       Keskar et al.'s sharpness, the top Hessian eigenvalue, 1-D interpolation
- ``minima``          small- and large-batch solutions trained (for a number of steps, or
                      to a training loss), measured and interpolated
- ``imagenet``        the lecture's ImageNet tables and their derived columns
- ``experiments``     the notebook's settings and sizes, shared with its checks
- ``plots``           drawing only: every figure of the notebook from computed results

The learning-rate recipes themselves (linear and square-root scaling, warmup, Goyal's
momentum correction, LARS/LAMB set up with parameter names) are in
:mod:`tutorial.optim.scaling`.
"""
