"""Model FLOPs utilisation (MFU): the FLOPs a training step must do, over what the devices could.

A matrix product x @ W of a token by a (a x b) weight costs 2ab FLOPs forward, and twice
that backward (the gradients of x and of W): 6 FLOPs per weight per token (Kaplan et al.
2020, "Scaling laws for neural language models", section 2.1). Attention adds two products
per block that have no weights, q kᵀ and the weights times v, each 2 seq² model_dim FLOPs
per sequence forward, so 12 seq² model_dim per block for training (Chowdhery et al. 2022,
"PaLM", appendix B: 6N + 12 L H Q T per token; Korthikanti et al. 2022, "Reducing
activation recomputation", whose 72 B s l h² (1 + s / 6h + V / 12hl) is this count for
hidden = 4h and ``causal=False``):

    model FLOPs per step = 6 x (weights a token multiplies) x batch x seq
                         + 12 x layers x seq² x model_dim x batch x (1/2 if causal)

A token multiplies the weights of a block's matrices (the 2-axis arrays of
:func:`~tutorial.sequence.layout.block_shapes`: W_q, W_k, W_v, W_o, W1, W2; with experts
the router and k experts' W1 and W2) and the output layer, not the tables (a lookup) nor
the gains and biases (a handful of FLOPs). Under a causal mask half the query-key pairs are
set aside; PaLM and Korthikanti et al. count the full square, which a kernel that computes
it (as the course's attention does) spends: pass ``causal=False`` for their count. Not
counted: an expert's empty slots at capacity, and recomputation (MFU counts the model's
FLOPs, whatever the hardware redid; Chowdhery et al.'s "hardware FLOPs utilisation"
counts it).

    MFU = model FLOPs per step / seconds per step / (devices x peak FLOP/s of one)

with the peak measured on the machine (:func:`tutorial.memory.roofline_measure.peak_flops`).

>>> from tutorial.sequence.layout import Transformer
>>> tiny = Transformer(layers=1, model_dim=4, heads=2, hidden=8, seq=3, batch=2, vocab=5)
>>> multiplied_weights(tiny)                 # 4 x 16 + 2 x 32 + output 20
148
>>> model_flops_per_step(tiny)               # 6 x 148 x 6 tokens + 12 x 9 x 4 x 2 / 2
5760
>>> mfu(5760, seconds=1e-6, peak_flops=1e10)
0.576
"""

import numpy as np

from tutorial.sequence.layout import block_shapes, check_model
from tutorial.validate import check_count, check_range


def _matrices(shapes):
    return sum(int(np.prod(s)) for s in shapes if len(s) == 2)


def multiplied_weights(model):
    """Weights one token multiplies in a forward (matrices of every block and the output
    layer; with experts the router and k experts' matrices)."""
    check_model(model)
    shapes = block_shapes(model)
    attention = _matrices(shapes.attention)
    mlp = _matrices(shapes.mlp)
    if model.experts:
        mlp = model.model_dim * model.experts + model.k * mlp
    return model.layers * (attention + mlp) + model.model_dim * model.vocab


def model_flops_per_step(model, causal=True):
    """Training FLOPs of one step of ``model`` (forward and backward, ``model.batch``
    sequences of ``model.seq`` tokens); ``causal`` halves attention's q kᵀ and weights v."""
    check_model(model)
    tokens = model.batch * model.seq
    attention = 12 * model.layers * model.seq ** 2 * model.model_dim * model.batch
    return 6 * multiplied_weights(model) * tokens + (attention // 2 if causal else attention)


def mfu(model_flops, seconds, peak_flops, devices=1):
    """Achieved over peak: ``model_flops / seconds / (devices x peak_flops)``."""
    check_range("model_flops", model_flops, 0.0, low_open=True)
    check_range("seconds", seconds, 0.0, low_open=True)
    check_range("peak_flops", peak_flops, 0.0, low_open=True)
    devices = check_count("devices", devices)
    return model_flops / seconds / (devices * peak_flops)
