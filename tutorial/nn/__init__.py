"""Blocks and helpers for capacity control, written from scratch (one idea per file).

- ``dropout``         :class:`Dropout`: a fresh inverted mask per step, identity when predicting
- ``dropconnect``     :class:`DropConnectDense`: a Dense layer that drops weights, not units
- ``early_stopping``  :class:`EarlyStopping`: patience, and the best weights restored
- ``augment``         shifts and small rotations of digit images (no flips), seeded
- ``fit``             a small training loop that records training and validation curves
"""

from .augment import augment_images, augmented_copies
from .dropconnect import DropConnectDense
from .dropout import Dropout, inverted_mask
from .early_stopping import EarlyStopping
from .fit import History, accuracy, fit
