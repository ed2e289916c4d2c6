"""The copy task: its data is what it says, a small transformer learns it well above
chance for two seeds, a model that sees each position alone stays at chance, and a NaN
stops training with the course's TrainingDiverged."""

import math

import mxnet as mx
import numpy as np
import pytest

from tutorial.finite import TrainingDiverged
from tutorial.sequence.tasks import CopyTask, answer_loss, batches, evaluate, train
from tutorial.sequence.transformer import Transformer, init_transformer

TASK = CopyTask(symbols=8, length=8)


def net_for(task, blocks, seed):
    net = Transformer(init_transformer(task.vocab, task.seq, 32, 2, blocks, 64, seed=seed),
                      heads=2)
    net.initialize()
    return net


def test_batches_copy_the_symbols_after_the_separator_and_depend_on_the_seed():
    a, b = (next(batches(TASK, 5, seed=3)) for _ in range(2))
    np.testing.assert_array_equal(a.inputs, b.inputs)
    assert a.inputs.shape == (5, 16) and a.answers.shape == (5, 8)
    np.testing.assert_array_equal(a.inputs[:, :8], a.answers)
    assert (a.inputs[:, 8] == TASK.separator).all()
    np.testing.assert_array_equal(a.inputs[:, 9:], a.answers[:, :7])
    assert a.inputs[:, :8].max() < TASK.symbols
    assert not np.array_equal(a.inputs, next(batches(TASK, 5, seed=4)).inputs)


def test_the_loss_is_the_cross_entropy_of_the_answers_only():
    batch = next(batches(TASK, 3, seed=0))
    logits = np.random.default_rng(0).normal(size=(3, 16, TASK.vocab))
    answers = logits[:, 8:]
    log_p = answers - np.log(np.exp(answers).sum(-1, keepdims=True))
    expected = -np.take_along_axis(log_p, batch.answers[..., None], -1).mean()
    got = answer_loss(mx.nd.array(logits), mx.nd.array(batch.answers), TASK).asscalar()
    assert got == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_small_transformer_learns_to_copy(seed):
    # the loss fell below 0.3 x chance by step 46-58 for seeds 0-5 (held-out accuracy
    # 1.0 at step 120, about 5 s each)
    history = train(net_for(TASK, blocks=2, seed=seed), TASK, steps=100, seed=seed)
    assert len(history.losses) == 100
    assert history.losses[0] > 0.9 * TASK.chance_loss
    assert np.mean(history.losses[-10:]) < 0.25 * TASK.chance_loss
    assert history.loss < 0.25 * TASK.chance_loss
    assert history.accuracy > 0.9, history                      # chance: 1/8


def test_a_model_that_sees_each_position_alone_stays_at_chance():
    history = train(net_for(TASK, blocks=0, seed=0), TASK, steps=100, seed=0)
    assert history.loss > 0.95 * TASK.chance_loss
    assert history.accuracy < 0.2                               # 1/8, on 8192 answers


def test_an_untrained_model_is_near_chance_on_held_out_data():
    loss, accuracy = evaluate(net_for(TASK, 2, seed=0), TASK, next(batches(TASK, 256, 9)))
    assert loss > 0.9 * math.log(TASK.symbols) and accuracy < 0.3


def test_a_nan_weight_stops_training_with_a_sentence():
    net = net_for(TASK, blocks=1, seed=0)
    net.collect_params()[net.prefix + "output"].set_data(
        mx.nd.full((32, TASK.vocab), float("nan")))
    with pytest.raises(TrainingDiverged, match="output holds NaN before the first update"):
        train(net, TASK, steps=3)


@pytest.mark.parametrize("call, error, message", [
    (lambda: next(batches((8, 8), 4)), TypeError, "task must be a CopyTask, got tuple"),
    (lambda: next(batches(CopyTask(1, 8), 4)), ValueError, r"task.symbols must be a whole "
     r"number >= 2 \(a task needs two symbols\), got 1"),
    (lambda: next(batches(CopyTask(8, 0), 4)), ValueError, "task.length must be a whole"),
    (lambda: next(batches(TASK, 0)), ValueError, "batch_size must be a whole number >= 1"),
    (lambda: train(None, TASK, steps=0), ValueError, "steps must be a whole number >= 1"),
    (lambda: train(None, TASK, 5, learning_rate=-1.0), ValueError,
     r"learning_rate=-1.0 is out of range"),
])
def test_bad_arguments_are_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_held_out_batch_size_is_a_choice_and_checked():
    task = CopyTask(symbols=4, length=3)
    net = Transformer(init_transformer(task.vocab, task.seq, 8, 2, 1, seed=0), heads=2)
    net.initialize()
    history = train(net, task, steps=2, batch_size=4, held_out=1, held_out_batch=3)
    assert len(history.losses) == 2 and 0 <= history.accuracy <= 1
    with pytest.raises(ValueError, match="held_out_batch"):
        train(net, task, steps=1, held_out_batch=0)
