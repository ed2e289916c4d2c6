"""Where memory goes as the sequence grows: what autograd keeps, counted, and measured.

Training keeps, for the backward, the arrays each recorded operation's gradient will read
(:mod:`.step_tape` lists them). For :func:`tutorial.sequence.block.block` that is, per
block, in floats:

    scores  4 x batch*heads*seq²        the where-mask (the condition), the masked
                                        scores (``max`` read them), exp(scores - max),
                                        the softmax weights
    tokens  10 x batch*seq*model_dim    centred and scaled (both LayerNorms), both norms'
                                        outputs, q, k, v (the head-split copies), the
                                        heads joined again
          +  1 x batch*seq*hidden       the MLP's ReLU output
          + (2 + 2*heads) x batch*seq   each row's std (two norms), max and sum

The s² term quadruples when seq doubles, the s·d terms double, the weights stay: the
scores take over once seq passes (10 model_dim + hidden) / (4 heads), 224 positions for
model_dim 256, hidden 1024, 4 heads. (The written-out softmax keeps four s² arrays; a
fused softmax keeps one, its output; FlashAttention (Dao et al. 2022) keeps none and
recomputes them in the backward.) The peak of the step (:func:`peak`) adds the backward's
gradients to what is still kept: in the last block's MLP backward up to seq 512 for the
defaults below, then, from seq 1024, where three s² gradients of its softmax are alive at
once (the two contributions to the gradient of exp and their sum).

:func:`measure` runs the same step in a fresh process started with
:data:`tutorial.memory.resident.ENV` and reads the kernel's counters: the bytes held after
the forward (all of it kept for the backward) and the peak of forward and backward, both
above a baseline taken after a warm-up step at the same size, beside the count. Every
large array is then above glibc's 128 kB mmap threshold (for the defaults: batch 4,
model_dim 256, vocab 256, seq >= 64), so resident memory follows the arrays.

>>> b, s, d, h, hidden = 4, 64, 256, 4, 1024
>>> m = Model(b, s, d, h, hidden, blocks=2, vocab=256)
>>> k = kept_per_block(m)
>>> k.scores == ITEMSIZE * 4 * b * h * s * s
True
>>> k.tokens == ITEMSIZE * ((10 * d + hidden) * b * s + (2 + 2 * h) * b * s)
True
>>> kept_per_block(m._replace(seq=2 * s)).scores == 4 * k.scores
True
"""

import gc
import json
import sys
from typing import NamedTuple

from tutorial import fresh_process
from tutorial.sequence.step_tape import Model, block_ops, check_model, sizes, tape, walk
from tutorial.validate import check_count

ITEMSIZE = 4            # float32
LIMIT = 2e9             # bytes: measure() refuses lengths the count puts above this
MAX_BLOCKS = 100        # measure() and the count refuse deeper models (the tape is a list)
TIMEOUT = 600


class Kept(NamedTuple):
    """Bytes autograd keeps for the backward, by kind."""
    scores: int             # (batch, heads, seq, seq) arrays: the s² term
    tokens: int             # arrays with a row per position: the s·d terms
    weights: int            # the weights the backward reads (they exist anyway)


def _kept(model, ops):
    size, kinds = sizes(model), {op.out: op.kind for op in ops}
    names = {k for op in ops for k in op.keeps}
    scores = sum(size[kinds[k]] for k in names if kinds[k] in ("scores", "pair"))
    return scores, sum(size[kinds[k]] for k in names) - scores


def kept_per_block(model):
    """:class:`Kept` of one block (its weights: four model_dim² projections, the MLP,
    two LayerNorms)."""
    check_model(model)
    d, hid = model.model_dim, model.hidden
    scores, tokens = _kept(model, block_ops("", "x", "y"))
    weights = 4 * d * d + 2 * d * hid + hid + 5 * d
    return Kept(*(ITEMSIZE * n for n in (scores, tokens, weights)))


def kept(model):
    """:class:`Kept` of the whole step: the blocks, the final norm and the log-probabilities."""
    check_model(model)
    scores, tokens = _kept(model, tape(model))
    block = kept_per_block(model).weights // ITEMSIZE
    weights = model.blocks * block + (model.vocab + model.seq + 2) * model.model_dim + \
        model.model_dim * model.vocab + model.vocab
    return Kept(*(ITEMSIZE * n for n in (scores, tokens, weights)))


def peak(model):
    """(bytes, moment): the most the step holds at once above its weights, and when."""
    moment, floats = max(walk(model), key=lambda m: m[1])
    return ITEMSIZE * floats, moment


class Measured(NamedTuple):
    """Bytes above the baseline at one length: held after the forward and at the peak of
    the step, measured by the kernel and counted (:func:`kept`, :func:`peak`)."""
    seq: int
    held: int
    peak: int
    counted_held: int
    counted_peak: int

    def within(self, relative, absolute):
        """Both measurements within ``relative`` of the count, or within ``absolute`` bytes."""
        return all(abs(m - c) <= max(relative * c, absolute) for m, c in
                   ((self.held, self.counted_held), (self.peak, self.counted_peak)))


def measure(seqs, batch=4, model_dim=256, heads=4, hidden=1024, blocks=2, vocab=256, seed=0,
            timeout=TIMEOUT):
    """One :class:`Measured` per length in ``seqs``: a training step of the
    :class:`~tutorial.sequence.transformer.Transformer` (loss: mean cross-entropy at every
    position) in a fresh process, after a warm-up step at the same size. For the defaults
    at seq 64 to 512 both numbers came within 1.2 % of the count (the tests allow 5 % or
    2 MB); the per-row statistics, under 128 kB, come from the heap and may read short."""
    seqs = [check_count("seqs", s) for s in seqs]
    if not seqs:
        raise ValueError("seqs is empty: give at least one sequence length, e.g. [64, 128]")
    models = [check_model(Model(batch, s, model_dim, heads, hidden, blocks, vocab))
              for s in seqs]
    if blocks > MAX_BLOCKS:
        raise ValueError(f"blocks={blocks} is above the {MAX_BLOCKS} blocks this measurement "
                         f"allows: the count replays every operation of every block")
    for m in models:
        k = kept_per_block(m)
        at_least = blocks * (k.scores + k.tokens)
        if at_least > LIMIT:
            raise ValueError(f"seq={m.seq} would keep at least {at_least / 1e9:.1f} GB for "
                             f"the backward, above the limit of {LIMIT / 1e9:g} GB this "
                             f"measurement allows: use a shorter seq or a smaller batch")
    got = _run({"seqs": seqs, "batch": batch, "model_dim": model_dim, "heads": heads,
                "hidden": hidden, "blocks": blocks, "vocab": vocab, "seed": seed}, timeout)
    out = []
    for m in models:
        k = kept(m)
        out.append(Measured(m.seq, *got[str(m.seq)], k.scores + k.tokens, peak(m)[0]))
    return out


def _run(job, timeout):
    from tutorial.memory.resident import ENV
    return fresh_process.run("the memory measurement", module="tutorial.sequence.length_memory",
                             args=[job], env=ENV, timeout=timeout,
                             hint="the machine is too busy or the sizes too large; use "
                                  "shorter seqs or pass a larger timeout=")


def _job(job):
    """In the fresh process: {seq: (bytes held after the forward, peak bytes)}."""
    import mxnet as mx
    import numpy as np
    from mxnet import autograd

    from tutorial.memory.resident import Resident
    from tutorial.sequence.transformer import Transformer, init_transformer
    probe = Resident()
    if probe.why_not:
        raise RuntimeError(probe.why_not)
    heads, vocab, batch = job["heads"], job["vocab"], job["batch"]
    net = Transformer(init_transformer(vocab, max(job["seqs"]), job["model_dim"], heads,
                                       job["blocks"], job["hidden"], job["seed"]), heads)
    net.initialize()
    rng = np.random.default_rng(job["seed"])

    def loss_of(tokens, targets):
        with autograd.record():
            log_p = mx.nd.log_softmax(net(tokens), axis=-1)
            return -mx.nd.pick(log_p, targets, axis=-1).mean()

    def settle():
        mx.nd.waitall()
        gc.collect()

    out = {}
    for seq in job["seqs"]:
        tokens, targets = (mx.nd.array(rng.integers(0, vocab, (batch, seq))) for _ in "ab")
        loss_of(tokens, targets).backward()           # warm-up: workspaces at this size
        settle()
        base = probe.now()
        probe.reset_peak()
        loss = loss_of(tokens, targets)
        settle()
        held = probe.now() - base
        loss.backward()
        del loss
        settle()
        out[seq] = (held, probe.peak() - base)
    return out


if __name__ == "__main__":
    print(json.dumps(_job(json.loads(sys.argv[1]))))
