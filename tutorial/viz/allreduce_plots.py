"""Static plots for the allreduce notebook: model time against node count and size, and
measured bandwidth next to the model's prediction. Computing lives in
:mod:`tutorial.parallel.costmodel` and :mod:`tutorial.parallel.collectives.measure`;
these functions only draw.
"""

import numpy as np

from tutorial.parallel import costmodel

STYLE = {"ps": ("tab:red", "o"), "tree": ("tab:orange", "s"),
         "butterfly": ("tab:purple", "^"), "ring": ("tab:blue", "D"),
         "device": ("black", "x"), "local": ("grey", "+")}


def model_curves(alpha, beta, gamma=0.0, node_counts=range(2, 17), sizes=None,
                 nbytes=64e6, nodes=8):
    """Model seconds: {algorithm: (time vs node count at nbytes, time vs size at nodes)}."""
    sizes = np.logspace(3, 8, 26) if sizes is None else np.asarray(sizes)
    return {a: (np.array([costmodel.predict(a, n, nbytes, alpha, beta, gamma)
                          for n in node_counts]),
                np.array([costmodel.predict(a, nodes, s, alpha, beta, gamma) for s in sizes]))
            for a in costmodel.ALGORITHMS}


def plot_model(alpha, beta, gamma=0.0, node_counts=range(2, 17), sizes=None, nbytes=64e6,
               nodes=8):
    """Two panels: time against N (fixed size) and against size (fixed N), with the bounds."""
    import matplotlib.pyplot as plt

    node_counts = list(node_counts)
    sizes = np.logspace(3, 8, 26) if sizes is None else np.asarray(sizes)
    curves = model_curves(alpha, beta, gamma, node_counts, sizes, nbytes, nodes)
    fig, (by_n, by_size) = plt.subplots(1, 2, figsize=(11, 4))
    for a, (vs_n, vs_size) in curves.items():
        colour, marker = STYLE[a]
        by_n.plot(node_counts, vs_n * 1e3, color=colour, marker=marker, ms=4, label=a)
        by_size.loglog(sizes, vs_size * 1e3, color=colour, label=a)
    bound = [max(costmodel.bandwidth_lower_bound(n, nbytes, beta),
                 costmodel.latency_lower_bound(n, alpha)) * 1e3 for n in node_counts]
    by_n.plot(node_counts, bound, "k--", label="lower bound")
    by_size.loglog(sizes, [max(costmodel.bandwidth_lower_bound(nodes, s, beta),
                               costmodel.latency_lower_bound(nodes, alpha)) * 1e3
                           for s in sizes], "k--", label="lower bound")
    by_n.set(xlabel="nodes N", ylabel="model time (ms)", yscale="log",
             title=f"{nbytes / 1e6:g} MB per node")
    by_size.set(xlabel="bytes per node", ylabel="model time (ms)", title=f"N = {nodes}")
    for ax in (by_n, by_size):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"alpha = {alpha * 1e6:g} \u00b5s, bandwidth = {1 / beta / 1e9:g} GB/s")
    fig.tight_layout()
    return fig


def plot_measured(rows, num_nodes, network=None, model="parallel"):
    """Measured busbw against size for every method; dashed: the fitted ``model`` for ours."""
    import matplotlib.pyplot as plt

    from tutorial.parallel.collectives.measure import model_seconds

    fig, ax = plt.subplots(figsize=(7, 4))
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method]
        sizes = np.array([r["nbytes"] for r in mine])
        colour, marker = STYLE.get(method, ("green", "."))
        label = method if method in costmodel.ALGORITHMS else f"kvstore '{method}'"
        ax.loglog(sizes, [r["busbw"] / 1e9 for r in mine], color=colour, marker=marker,
                  label=label)
        if network is not None and method in costmodel.ALGORITHMS:
            fitted = [costmodel.busbw(s, model_seconds(method, num_nodes, s, network, model),
                                      num_nodes) / 1e9 for s in sizes]
            ax.loglog(sizes, fitted, color=colour, ls="--", lw=1)
    ax.set(xlabel="bytes per device", ylabel="busbw (GB/s)",
           title=f"{num_nodes} devices: measured (solid), fitted '{model}' model (dashed)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
