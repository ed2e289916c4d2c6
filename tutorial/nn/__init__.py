"""The course's networks, its training loop, and blocks for capacity control (one idea per file).

- ``mlp``             :func:`mlp`: the digits MLP, Xavier weights drawn by NumPy from a seed
- ``resnet``          :func:`resnet`: a small ResNet for 1x28x28 MNIST, BatchNorm per device
                      or synchronised (SyncBatchNorm) or none, weights drawn from a seed
- ``sync_batchnorm``  SyncBatchNorm that refuses a training forward outside the trainers
                      (it would wait forever for the other devices)
- ``loss``            :func:`gradients_of` (one backward pass) and :func:`mean_loss`
- ``train_loop``      :func:`trained_with` (weights after given minibatches) and
                      :func:`training_curve` (loss after each epoch), for any optimizer
- ``dropout``         :class:`Dropout`: a fresh inverted mask per step, identity when predicting
- ``dropconnect``     :class:`DropConnectDense`: a Dense layer that drops weights, not units
- ``early_stopping``  :class:`EarlyStopping`: patience, and the best weights restored
- ``augment``         shifts and small rotations of digit images (no flips), seeded
- ``fit``             SGD training that records training and validation accuracy curves
"""

from .augment import augment_images, augmented_copies
from .dropconnect import DropConnectDense
from .dropout import Dropout, inverted_mask
from .early_stopping import EarlyStopping
from .fit import History, accuracy, fit
from .loss import gradients_of, mean_loss
from .mlp import mlp
from .resnet import resnet
from .train_loop import trained_with, training_curve
