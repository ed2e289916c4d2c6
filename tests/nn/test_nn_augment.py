"""Augmentation: shifts and rotations against NumPy references; shapes, labels and seeds."""

import numpy as np
import pytest

from tutorial.nn import augment_images, augmented_copies
from tutorial.nn.augment import transform_image


def _image(side, seed=0):
    return np.random.default_rng(seed).uniform(size=(side, side)).astype(np.float32)


def _shift_reference(img, down, right):
    out = np.zeros_like(img)
    h, w = img.shape
    out[max(down, 0):h + min(down, 0), max(right, 0):w + min(right, 0)] = \
        img[max(-down, 0):h - max(down, 0), max(-right, 0):w - max(right, 0)]
    return out


@pytest.mark.parametrize("down, right", [(1, 0), (0, -2), (-1, 3), (2, 2)])
def test_whole_pixel_shifts_match_a_zero_filled_numpy_shift(down, right):
    img = _image(8)
    np.testing.assert_allclose(transform_image(img, 0.0, (down, right)),
                               _shift_reference(img, down, right), atol=1e-6)


@pytest.mark.parametrize("side", [7, 8])
@pytest.mark.parametrize("degrees, turns", [(90, 1), (180, 2), (-90, -1), (270, 3)])
def test_quarter_turns_match_numpy_rot90(side, degrees, turns):
    img = _image(side)
    np.testing.assert_allclose(transform_image(img, degrees, (0, 0)), np.rot90(img, turns),
                               atol=1e-5)


def test_no_shift_and_no_turn_is_the_identity():
    img = _image(28)
    np.testing.assert_allclose(transform_image(img, 0.0, (0, 0)), img, atol=1e-6)
    X = np.stack([img.ravel(), _image(28, 1).ravel()])
    np.testing.assert_allclose(augment_images(X, 0, max_shift=0, max_degrees=0), X, atol=1e-6)


@pytest.mark.parametrize("shape", [(5, 64), (5, 8, 8), (3, 784)])
def test_shape_and_dtype_are_kept(shape):
    X = np.random.default_rng(0).uniform(size=shape).astype(np.float32)
    out = augment_images(X, np.random.default_rng(1))
    assert out.shape == X.shape and out.dtype == X.dtype
    assert not np.allclose(out, X)


def test_the_same_seed_gives_the_same_images_and_another_seed_does_not():
    X = np.random.default_rng(0).uniform(size=(10, 64)).astype(np.float32)
    a = augment_images(X, 3)
    np.testing.assert_array_equal(a, augment_images(X, 3))
    assert not np.array_equal(a, augment_images(X, 4))
    big_a, _ = augmented_copies(X, np.arange(10), copies=2, seed=5)
    big_b, _ = augmented_copies(X, np.arange(10), copies=2, seed=5)
    np.testing.assert_array_equal(big_a, big_b)


def test_copies_keep_the_originals_first_and_repeat_the_labels_unchanged():
    X = np.random.default_rng(0).uniform(size=(6, 64)).astype(np.float32)
    y = np.array([3, 1, 4, 1, 5, 9], dtype=np.int32)
    X_big, y_big = augmented_copies(X, y, copies=3, seed=0)
    assert X_big.shape == (24, 64) and y_big.dtype == y.dtype
    np.testing.assert_array_equal(X_big[:6], X)
    np.testing.assert_array_equal(y_big, np.tile(y, 4))
    assert not np.allclose(X_big[6:12], X)


def test_shifts_move_ink_without_losing_any_when_the_border_is_empty():
    X = np.zeros((20, 8, 8), np.float32)
    X[:, 1:7, 1:7] = np.random.default_rng(0).uniform(size=(20, 6, 6))
    out = augment_images(X, 0, max_shift=1, max_degrees=0)
    np.testing.assert_allclose(out.sum(axis=(1, 2)), X.sum(axis=(1, 2)), rtol=1e-5)
    assert (np.abs(out - X).sum(axis=(1, 2)) > 0).mean() > 0.5       # most of them moved


@pytest.mark.parametrize("call, message", [
    (lambda: augment_images(np.zeros((2, 63)), 0), "side"),
    (lambda: augment_images(np.zeros((2, 64)), 0, max_degrees=90), "max_degrees"),
    (lambda: augment_images(np.zeros((2, 64)), 0, max_shift=1.5), "max_shift"),
    (lambda: augmented_copies(np.zeros((2, 64)), [1, 2, 3], copies=1), "labels"),
    (lambda: augmented_copies(np.zeros((2, 64)), [1, 2], copies=-1), "copies"),
])
def test_bad_input_is_explained(call, message):
    with pytest.raises(ValueError, match=message):
        call()
