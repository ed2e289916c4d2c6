"""A task only attention can solve: copy a random sequence after a separator.

Each example is ``length`` random symbols, a separator, then the same symbols again:

    tokens   x1 x2 ... xL  SEP  x1 x2 ... xL        symbols uniform in [0, symbols)
    inputs   x1 x2 ... xL  SEP  x1 ... x(L-1)       (the model reads all but the last)
    answers                SEP→x1, x1→x2, ..., x(L-1)→xL   (the loss counts these L only)

A causal language model predicts every next token, but only the second half can be
predicted: at answer ``j`` (position L + j - 1) the model reads x(j-1) (or the separator)
and must say xj, which stands at position j - 1: exactly ``L`` positions back. The symbols are drawn independently, so a model that sees each
position alone (``blocks=0``: embeddings and the output layer) cannot beat chance: its best
loss is ``log(symbols)`` and its accuracy ``1 / symbols``. One attention head that looks
``L`` positions back solves the task; the learned position embeddings make "L back" easy
to express. (A model that finds the earlier copy of the token it reads and takes the next
one does the same in two steps: an induction head, Olsson et al. 2022.)

Everything is generated from a seed, on the machine: no downloads. :func:`train` runs
Adam through a ``gluon.Trainer`` and stops with :class:`~tutorial.finite.TrainingDiverged`
at a non-finite loss.

>>> task = CopyTask(symbols=4, length=3)
>>> batch = next(batches(task, batch_size=2, seed=0))
>>> batch.inputs.shape, batch.answers.shape, task.vocab
((2, 6), (2, 3), 5)
>>> bool((batch.inputs[:, 3] == task.separator).all())
True
>>> bool((batch.inputs[:, 4:] == batch.answers[:, :2]).all())   # the copy, shifted by one
True
"""

import math
import time
from typing import NamedTuple

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon

from tutorial.finite import check_loss
from tutorial.validate import check_count, check_range


class CopyTask(NamedTuple):
    """Copy ``length`` symbols, each one of ``symbols``, after a separator token."""
    symbols: int = 8
    length: int = 8

    @property
    def separator(self):
        return self.symbols                     # the one token id that is not a symbol

    @property
    def vocab(self):
        return self.symbols + 1

    @property
    def seq(self):
        return 2 * self.length                  # positions the model reads

    @property
    def chance_loss(self):
        """The best loss of a model that sees each position alone: log(symbols)."""
        return math.log(self.symbols)


class Batch(NamedTuple):
    inputs: np.ndarray      # (batch, 2 * length) token ids the model reads
    answers: np.ndarray     # (batch, length) the tokens it must predict at positions L..2L-1


def check_task(task):
    if not isinstance(task, CopyTask):
        raise TypeError(f"task must be a CopyTask, got {type(task).__name__}: use "
                        f"CopyTask(symbols=8, length=8)")
    check_count("task.symbols", task.symbols, low=2, what="a task needs two symbols")
    check_count("task.length", task.length)
    return task


def batches(task, batch_size, seed=0):
    """Endless batches of ``batch_size`` examples, drawn from ``default_rng(seed)``."""
    check_task(task)
    batch_size = check_count("batch_size", batch_size)
    rng = np.random.default_rng(seed)
    sep = np.full((batch_size, 1), task.separator)
    while True:
        x = rng.integers(0, task.symbols, (batch_size, task.length))
        tokens = np.concatenate([x, sep, x], axis=1)            # (B, 2L + 1)
        yield Batch(tokens[:, :-1], x)


def answer_logits(logits, task):
    """The logits at the answer positions L..2L-1: (batch, length, vocab)."""
    return mx.nd.slice_axis(logits, axis=1, begin=task.length, end=2 * task.length)


def answer_loss(logits, answers, task):
    """Mean cross-entropy of the answers (an NDArray of ids, (batch, length))."""
    log_p = mx.nd.log_softmax(answer_logits(logits, task), axis=-1)
    return -mx.nd.pick(log_p, answers, axis=-1).mean()


def evaluate(net, task, batch, ctx=None):
    """(mean loss, fraction of answers right) of ``net`` on one :class:`Batch`."""
    ctx = ctx or mx.current_context()
    logits = net(mx.nd.array(batch.inputs, ctx=ctx))
    answers = mx.nd.array(batch.answers, ctx=ctx)
    right = answer_logits(logits, task).argmax(axis=-1) == answers
    return float(answer_loss(logits, answers, task).asscalar()), float(right.mean().asscalar())


class History(NamedTuple):
    losses: tuple           # the training loss of each step
    loss: float             # on held-out batches after training
    accuracy: float         # fraction of held-out answers right
    seconds: float          # wall time of the training steps


def train(net, task, steps, batch_size=32, learning_rate=5e-3, seed=0, ctx=None,
          held_out=4, held_out_batch=256):
    """Train an initialised ``net`` (token ids -> logits) on ``task`` for ``steps`` Adam
    steps; a :class:`History`. ``held_out`` batches of ``held_out_batch`` examples, from
    seed ``seed + 1``, score it after training."""
    check_task(task)
    steps = check_count("steps", steps)
    learning_rate = check_range("learning_rate", learning_rate, 0.0, low_open=True)
    ctx = ctx or mx.current_context()
    params = net.collect_params()
    trainer = gluon.Trainer(params, "adam", {"learning_rate": learning_rate})
    losses, start = [], time.perf_counter()
    for step, batch in zip(range(1, steps + 1), batches(task, batch_size, seed)):
        answers = mx.nd.array(batch.answers, ctx=ctx)
        with autograd.record():
            loss = answer_loss(net(mx.nd.array(batch.inputs, ctx=ctx)), answers, task)
        loss.backward()
        losses.append(check_loss(float(loss.asscalar()), params.values(), step,
                                 learning_rate))
        trainer.step(1)
    seconds = time.perf_counter() - start
    scores = [evaluate(net, task, b, ctx) for _, b in
              zip(range(check_count("held_out", held_out)),
                  batches(task, check_count("held_out_batch", held_out_batch), seed + 1))]
    return History(tuple(losses), float(np.mean([s[0] for s in scores])),
                   float(np.mean([s[1] for s in scores])), seconds)
