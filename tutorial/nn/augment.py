"""Data augmentation for digit images: small shifts and small rotations, seeded.

When the training set is too small to learn a model that generalises (the notes' "Data
Augmentation" slide), we can make more of it: a 3 moved one pixel to the left, or tilted
by 10 degrees, is still a 3. Flips are left out on purpose: a mirrored 2 or 7 is not a
digit, and a 6 turned upside down is a 9, so a flip could change the label.

Images may come flat, (N, side*side), or square, (N, side, side); the output has the
input's shape and dtype, and labels are never touched. Pixels moved in from outside
the frame are 0 (background). Rotations use bilinear interpolation about the centre.

>>> import numpy as np
>>> img = np.zeros((3, 3), np.float32); img[0, 1] = 1      # a dot at the top middle
>>> transform_image(img, degrees=0, shift=(1, 0)).tolist()  # one pixel down
[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
>>> transform_image(img, degrees=90, shift=(0, 0)).round(6).tolist()  # a quarter turn left
[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
"""

import math

import numpy as np
from scipy import ndimage


def transform_image(image, degrees, shift):
    """Rotate a square image by ``degrees`` (counter-clockwise as displayed) about its centre,
    then move it by ``shift`` = (rows down, columns right) pixels."""
    image = np.asarray(image)
    theta = math.radians(degrees)
    cos, sin = math.cos(theta), math.sin(theta)
    # output pixel o reads input pixel  R^-1 (o - centre - shift) + centre,  in (row, col)
    inverse = np.array([[cos, sin], [-sin, cos]]).round(12)   # exact 0 and +-1 at quarter turns
    centre = (np.array(image.shape, dtype=float) - 1) / 2
    offset = centre - inverse @ (centre + np.asarray(shift, dtype=float))
    out = ndimage.affine_transform(image.astype(np.float64), inverse, offset=offset,
                                   order=1, mode="constant", cval=0.0)
    return out.astype(image.dtype)


def _as_squares(X):
    X = np.asarray(X)
    if X.ndim == 3 and X.shape[1] == X.shape[2]:
        return X
    side = math.isqrt(X.shape[-1]) if X.ndim == 2 else 0
    if X.ndim != 2 or side * side != X.shape[1]:
        raise ValueError(f"expected images as (N, side*side) or (N, side, side), got shape "
                         f"{X.shape}; e.g. load_digits() gives (N, 64) for 8x8 images")
    return X.reshape(len(X), side, side)


def augment_images(X, rng, max_shift=1, max_degrees=10.0):
    """A randomly shifted and rotated copy of every image in ``X``.

    Each image gets its own whole-pixel shift in [-max_shift, max_shift] along each axis
    and its own angle in [-max_degrees, max_degrees], drawn from ``rng``
    (a ``np.random.Generator``, or an int seed).
    """
    if not isinstance(max_shift, int) or max_shift < 0:
        raise ValueError(f"max_shift must be a whole number of pixels >= 0, got {max_shift!r}")
    if not 0 <= max_degrees <= 45:
        raise ValueError(f"max_degrees must lie in [0, 45] (bigger turns change what a digit "
                         f"looks like), got {max_degrees}")
    rng = np.random.default_rng(rng)
    squares = _as_squares(X)
    shifts = rng.integers(-max_shift, max_shift + 1, size=(len(squares), 2))
    angles = rng.uniform(-max_degrees, max_degrees, size=len(squares))
    out = np.stack([transform_image(img, a, s) for img, a, s in zip(squares, angles, shifts)]
                   ) if len(squares) else squares.copy()
    return out.reshape(np.shape(X)).astype(np.asarray(X).dtype)


def augmented_copies(X, y, copies, seed=0, **kwargs):
    """The originals followed by ``copies`` augmented versions of each: (X_big, y_big).

    Labels are repeated unchanged; ``kwargs`` go to :func:`augment_images`.
    """
    if not isinstance(copies, int) or copies < 0:
        raise ValueError(f"copies must be a whole number >= 0, got {copies!r}")
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} images but y has {len(y)} labels")
    rng = np.random.default_rng(seed)
    xs = [np.asarray(X)] + [augment_images(X, rng, **kwargs) for _ in range(copies)]
    return np.concatenate(xs), np.concatenate([np.asarray(y)] * (copies + 1))
