"""The least-squares problems asynchronous SGD is simulated on (:mod:`.async_sgd`).

``f(w) = mean((X w - y)**2) / 2`` with its minibatch gradients: from given rows
(``least_squares``), or random sparse rows that behave like word counts or pixels
(``sparse_least_squares``), where each gradient touches only a few coordinates.

>>> p = least_squares([[1.0, 0.0], [0.0, 2.0]], [1.0, 2.0])
>>> p.loss(p.w0), p.grad(p.w0, [1]).tolist(), p.support([0]).tolist()
(1.25, [0.0, -4.0], [0])
"""

import dataclasses

import numpy as np

from tutorial.validate import check_count


@dataclasses.dataclass(frozen=True)
class Problem:
    """Least squares ``f(w) = mean((X w - y)**2) / 2`` and its minibatch gradients."""
    X: np.ndarray          # (n, d); rows with few non-zeros make a sparse problem
    y: np.ndarray          # (n,)
    w0: np.ndarray         # (d,) start

    def loss(self, w):
        r = self.X @ w - self.y
        return 0.5 * float(r @ r) / len(self.y)

    def losses(self, weights, chunk=512):
        """``loss`` of each row of ``weights`` (updates, d), vectorised."""
        out = [0.5 * np.mean((weights[i:i + chunk] @ self.X.T - self.y) ** 2, axis=1)
               for i in range(0, len(weights), chunk)]
        return np.concatenate(out) if out else np.zeros(0)

    def grad(self, w, rows):
        Xb = self.X[rows]
        return Xb.T @ (Xb @ w - self.y[rows]) / len(rows)

    def support(self, rows):
        """The coordinates a gradient on ``rows`` can change."""
        return np.flatnonzero(np.any(self.X[rows] != 0, axis=0))


def least_squares(X, y, w0=None):
    """The :class:`Problem` for rows ``X`` (n, d), targets ``y`` (n,), start ``w0`` (d,)."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a table of n >= 1 rows and d >= 1 columns, got shape "
                         f"{X.shape}")
    if y.shape != (len(X),):
        raise ValueError(f"y must hold one target per row of X, shape ({len(X)},); got {y.shape}")
    w0 = np.zeros(X.shape[1]) if w0 is None else np.asarray(w0, dtype=np.float64)
    if w0.shape != (X.shape[1],):
        raise ValueError(f"w0 must hold one weight per column of X, shape ({X.shape[1]},); "
                         f"got {w0.shape}")
    return Problem(X, y, w0)


def sparse_least_squares(n, d, nonzeros_per_row, noise=0.01, seed=0):
    """Rows with ``nonzeros_per_row`` non-negative features set, as word counts or pixels.

    ``nonzeros_per_row = d`` gives a dense problem: then all rows point roughly the same
    way (non-negative features), so updates from different workers interfere.
    """
    n, d = check_count("n", n, what="rows"), check_count("d", d, what="features")
    if not 1 <= nonzeros_per_row <= d:
        raise ValueError(f"nonzeros_per_row must be from 1 to d={d}, got {nonzeros_per_row}")
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    for i in range(n):
        cols = rng.choice(d, size=nonzeros_per_row, replace=False)
        X[i, cols] = np.abs(rng.normal(size=nonzeros_per_row)) / np.sqrt(nonzeros_per_row)
    w_true = rng.normal(size=d)
    return least_squares(X, X @ w_true + noise * rng.normal(size=n))
