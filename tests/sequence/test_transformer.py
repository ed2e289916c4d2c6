"""The Gluon transformer equals a float64 NumPy model forward, and the same model written
with MXNet's own operators (Embedding, LayerNorm, FullyConnected, batch_dot, softmax) in
its gradients; bad shapes and token ids are refused in a sentence."""

import math

import mxnet as mx
import numpy as np
import pytest
from mxnet import autograd, gluon

from tutorial.sequence.transformer import (Transformer, init_transformer,
                                           transformer_reference)


def model(vocab=11, max_len=9, model_dim=12, heads=3, blocks=2, hidden=20, seed=0,
          ctx=mx.cpu()):
    w = init_transformer(vocab, max_len, model_dim, heads, blocks, hidden, seed=seed)
    net = Transformer(w, heads)
    net.initialize(ctx=ctx)
    return w, net


def tokens(batch, seq, vocab, seed=1):
    return np.random.default_rng(seed).integers(0, vocab, (batch, seq))


@pytest.mark.parametrize("dims", [(11, 9, 12, 3, 2, 20), (5, 4, 8, 1, 1, 8),
                                  (7, 6, 8, 2, 0, 16)])
@pytest.mark.parametrize("seq", [1, 4])
def test_forward_equals_the_float64_reference(dims, seq):
    vocab, max_len, model_dim, heads, blocks, hidden = dims
    w, net = model(vocab, max_len, model_dim, heads, blocks, hidden, seed=vocab)
    t = tokens(3, seq, vocab)
    ours = net(mx.nd.array(t)).asnumpy()
    expected = transformer_reference(t, w, heads)
    assert ours.shape == (3, seq, vocab)
    np.testing.assert_allclose(ours, expected, atol=1e-4 * max(1, np.abs(expected).max()))


def test_later_tokens_do_not_change_earlier_logits():
    _, net = model()
    t = tokens(2, 8, 11)
    changed = t.copy()
    changed[:, 5:] = (changed[:, 5:] + 3) % 11
    a, b = (net(mx.nd.array(v)).asnumpy() for v in (t, changed))
    np.testing.assert_allclose(a[:, :5], b[:, :5], atol=1e-5)
    assert np.abs(a[:, 5:] - b[:, 5:]).max() > 1e-2


def test_the_same_logits_on_another_context():
    w, net = model(ctx=mx.cpu(1))
    t = tokens(2, 6, 11)
    out = net(mx.nd.array(t, ctx=mx.cpu(1)))
    assert out.context == mx.cpu(1)
    np.testing.assert_allclose(out.asnumpy(), transformer_reference(t, w, 3), atol=1e-4)


# ---- the same model with MXNet's own operators: the independent reference -----------------

def mxnet_ops_logits(t, w, heads, embed, positions):
    """Logits from MXNet's layers, weights in their own layout (out, in) for FullyConnected."""
    batch, seq = t.shape
    x = embed(t) + positions(mx.nd.arange(seq)).expand_dims(0)
    mask = mx.nd.array(np.triu(np.full((seq, seq), -1e9), k=1))

    def fc(x, weight, bias=None):
        return mx.nd.FullyConnected(x, weight, bias, num_hidden=weight.shape[0],
                                    no_bias=bias is None, flatten=False)

    def per_head(x):                          # (B, S, D) -> (B * H, S, D / H)
        return x.reshape((batch, seq, heads, -1)).transpose((0, 2, 1, 3)) \
            .reshape((batch * heads, seq, -1))

    for b in w["blocks"]:
        a = mx.nd.LayerNorm(x, b["norm1"][0], b["norm1"][1], axis=-1, eps=1e-5)
        q, k, v = (per_head(fc(a, m)) for m in b["qkv"])
        s = mx.nd.batch_dot(q, k, transpose_b=True) / math.sqrt(q.shape[-1])
        p = mx.nd.softmax(mx.nd.broadcast_add(s, mask.expand_dims(0)), axis=-1)
        o = mx.nd.batch_dot(p, v).reshape((batch, heads, seq, -1)).transpose((0, 2, 1, 3))
        x = x + fc(o.reshape((batch, seq, -1)), b["out"])
        m = mx.nd.LayerNorm(x, b["norm2"][0], b["norm2"][1], axis=-1, eps=1e-5)
        x = x + fc(mx.nd.relu(fc(m, *b["first"])), *b["second"])
    x = mx.nd.LayerNorm(x, w["final"][0], w["final"][1], axis=-1, eps=1e-5)
    return fc(x, w["output"], w["output_bias"])


def mxnet_ops_model(w):
    """(weights as NDArrays with gradients, the two Embedding layers), copied from ``w``."""
    def nd(a, transpose=False):
        array = mx.nd.array(a.T if transpose else a)
        array.attach_grad()
        return array

    embed, positions = (gluon.nn.Embedding(*np.shape(t)) for t in (w.tokens, w.positions))
    for layer, table in ((embed, w.tokens), (positions, w.positions)):
        layer.initialize()
        layer.weight.set_data(mx.nd.array(table))
    blocks = [{"norm1": [nd(a) for a in b.norm1], "norm2": [nd(a) for a in b.norm2],
               "qkv": [nd(a, True) for a in b.attention[:3]],
               "out": nd(b.attention.output, True),
               "first": [nd(b.mlp.first, True), nd(b.mlp.first_bias)],
               "second": [nd(b.mlp.second, True), nd(b.mlp.second_bias)]}
              for b in w.blocks]
    return {"blocks": blocks, "final": [nd(a) for a in w.final_norm],
            "output": nd(w.output, True), "output_bias": nd(w.output_bias)}, embed, positions


def close(ours, theirs):
    np.testing.assert_allclose(ours, theirs, rtol=1e-3, atol=1e-4 * max(1, np.abs(theirs).max()))


@pytest.mark.parametrize("heads, blocks, seq", [(3, 2, 9), (1, 1, 5), (2, 3, 7)])
def test_gradients_equal_those_of_mxnets_own_operators(heads, blocks, seq):
    w, net = model(model_dim=12, heads=heads, blocks=blocks, seed=heads + blocks)
    t = tokens(3, seq, 11, seed=seq)
    probe = mx.nd.array(np.random.default_rng(5).normal(size=(3, seq, 11)))
    with autograd.record():
        loss = (net(mx.nd.array(t)) * probe).sum()
    loss.backward()
    theirs, embed, positions = mxnet_ops_model(w)
    with autograd.record():
        their_loss = (mxnet_ops_logits(mx.nd.array(t), theirs, heads, embed, positions)
                      * probe).sum()
    their_loss.backward()
    close(loss.asscalar(), their_loss.asscalar())
    grads = {p.name[len(net.prefix):]: p.grad().asnumpy()
             for p in net.collect_params().values()}
    close(grads["tokens"], embed.weight.grad().asnumpy())
    close(grads["positions"], positions.weight.grad().asnumpy())
    close(grads["output"], theirs["output"].grad.asnumpy().T)
    close(grads["output_bias"], theirs["output_bias"].grad.asnumpy())
    close(grads["final_norm_gain"], theirs["final"][0].grad.asnumpy())
    for i, b in enumerate(theirs["blocks"]):
        pairs = {"norm1_gain": b["norm1"][0], "norm1_bias": b["norm1"][1],
                 "norm2_gain": b["norm2"][0], "norm2_bias": b["norm2"][1],
                 "mlp_first_bias": b["first"][1], "mlp_second_bias": b["second"][1]}
        pairs_t = {"attention_query": b["qkv"][0], "attention_key": b["qkv"][1],
                   "attention_value": b["qkv"][2], "attention_output": b["out"],
                   "mlp_first": b["first"][0], "mlp_second": b["second"][0]}
        for name, array in pairs.items():
            close(grads[f"block{i}_{name}"], array.grad.asnumpy())
        for name, array in pairs_t.items():
            close(grads[f"block{i}_{name}"], array.grad.asnumpy().T)
    assert all(np.abs(g).max() > 0 for g in grads.values()), "a weight got no gradient"


# ---- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("t, message", [
    (mx.nd.zeros((2, 3, 4)), r"tokens must have 2 axes \(batch, seq\), got shape \(2, 3, 4\)"),
    (mx.nd.zeros((1, 10)), r"seq=10 positions but .* max_len=9: cut the sequence"),
    (mx.nd.array([[1, 11]]), r"whole numbers in \[0, vocab\) = \[0, 11\), got 11.0"),
    (mx.nd.array([[-1, 2]]), r"got -1.0: map the data to ids below 11"),
    (mx.nd.array([[1.5, 2]]), r"got 1.5"),
])
def test_bad_tokens_are_named(t, message):
    _, net = model()
    with pytest.raises(ValueError, match=message):
        net(t)


def test_numpy_tokens_and_bad_sizes_are_refused():
    w, net = model()
    with pytest.raises(TypeError, match=r"tokens must be an MXNet NDArray, got ndarray: pass "
                                        r"mx.nd.array"):
        net(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="heads=5 does not divide model_dim=12"):
        Transformer(w, heads=5)
    with pytest.raises(ValueError, match="does not divide"):
        init_transformer(11, 9, 12, heads=5, blocks=0)
    with pytest.raises(ValueError, match="vocab must be a whole number >= 1, got 0"):
        init_transformer(0, 9, 12, 3, 2)
    with pytest.raises(ValueError, match="whole numbers in"):
        transformer_reference(np.array([[0, 99]]), w, 3)
