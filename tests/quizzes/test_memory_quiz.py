"""The memory quiz: its numbers are what tutorial.memory (and notebook 10's stacks) count."""

from fractions import Fraction

from tutorial.check.memory import _expected
from tutorial.memory.recompute import sqrt_segments
from tutorial.quizzes.memory import QUIZ


def question(stem):
    [found] = [q for q in QUIZ.questions if stem in q.text]
    return found


def right_options(number):
    return {o.text for o in QUIZ.questions[number].options if o.is_right}


def option(q, start):
    [found] = [o for o in q.options if o.text.startswith(start)]
    return found


def test_the_megabytes_are_the_zero_table():
    mb = {s: sum(_expected(1_000_000, 4, s, 2)) / 1e6 for s in range(4)}
    assert mb == {0: 16.0, 1: 10.0, 2: 7.0, 3: 4.0}
    assert any("16 MB" in t for t in right_options(0))
    assert any("10 MB" in t for t in right_options(0))


def test_sixteen_layers_in_four_segments_hold_seven_outputs():
    plan = sqrt_segments(16)
    assert len(plan) == 4
    assert len(plan) + max(b - a for a, b in plan) - 1 == 7


def test_recomputation_costs_the_forwards_the_quiz_says():
    import mxnet as mx
    import numpy as np

    from tutorial.calls import counting
    from tutorial.memory import layers, recompute
    rng = np.random.default_rng(0)
    params = [(mx.nd.array(rng.normal(size=(3, 3))), mx.nd.array(rng.normal(size=3)))
              for _ in range(16)]
    X, y = rng.normal(size=(2, 3)), np.array([0.0, 2.0])
    runs = {}
    for k in (4, 16):
        with counting(layers.forward) as seen:
            recompute.gradients(params, X, y, recompute.segments(16, k))
        runs[k] = seen.calls
    assert runs[4] - runs[16] == 16 - 4
    assert any("n - k more layer forwards" in o.why
               for o in question("recomputes the rest").options if not o.is_right)


def test_the_tensor_parallel_crossovers_are_the_libraries():
    from tutorial.memory.tensor_or_data import crossover_batch
    from tutorial.memory.tensor_parallel import bytes_per_step
    from tutorial.parallel.pipeline.data_or_model import compare, conv_stack, dense_stack
    dense, conv = dense_stack([1024] * 9), conv_stack(channels=256, size=28, layers=8)
    q = question("allreduces activations")
    dense_option = option(q, "for the notebook's 8 dense layers")
    assert dense_option.is_right and f"{crossover_batch(dense, 4):.0f}" in dense_option.text
    assert f"{crossover_batch(dense, 4):.1f}" in dense_option.why            # 1171.4
    conv_option = option(q, "for the notebook's 8 convolutions")
    assert not conv_option.is_right
    assert f"about {crossover_batch(conv, 4):.0f} samples" in conv_option.why     # 3.36
    ratio = bytes_per_step(conv, 256, 4) / compare(conv, 256, 4).data_bytes
    assert f"about {ratio:.0f} times" in conv_option.why                          # 76.2
    assert f"{28 * 28 * 256:,} numbers" in conv_option.why
    assert f"{conv[0].parameters:,} weights" in conv_option.why
    assert option(q, "tensor parallelism's bytes grow with the batch").is_right
    assert bytes_per_step(dense, 512, 4) == 2 * bytes_per_step(dense, 256, 4)
    assert compare(dense, 512, 4).data_bytes == compare(dense, 256, 4).data_bytes


def test_mixed_precision_keeps_sixteen_bytes_of_model_state_per_parameter():
    from tutorial.memory.footprint import state_copies
    from tutorial.memory.precision import BYTES
    adam = state_copies("adam")
    mixed = BYTES["float16"] + BYTES["float16"] + BYTES["float32"] + adam * BYTES["float32"]
    plain = BYTES["float32"] + BYTES["float32"] + adam * BYTES["float32"]
    assert mixed == plain == 16
    q = question("master copy")
    assert not option(q, "it halves the bytes of model state").is_right
    assert option(q, "the weights, gradients and optimizer state take the same 16").is_right
    assert "2 (weights) + 2 (gradients) + 4 (master weights) + 8 (m and v) = 16" in \
        option(q, "it halves").why


def test_the_scaler_skips_and_halves_on_an_overflow_and_doubles_after_n_good_steps():
    from tutorial.memory.loss_scaling import DynamicLossScaler
    rows = list(DynamicLossScaler(init_scale=8.0, growth_interval=2).schedule(
        [False, True, True]))
    assert not rows[0].applied and rows[0].next_scale == 4.0
    assert rows[2].applied and rows[2].next_scale == 8.0
    q = question("dynamic loss scale")
    assert option(q, "when a step's gradients hold an inf").is_right
    assert not option(q, "a step whose gradients overflow is applied").is_right


def test_the_update_intensities_are_the_roofline_modules():
    from tutorial.memory import roofline
    why = option(question("roofline"), "an optimizer update is memory-bound").why
    for name, label in (("sgd", "SGD"), ("momentum", "momentum"), ("adam", "Adam")):
        fraction = roofline.update(name, 10).intensity_fraction()
        assert fraction < Fraction(1, 2) and f"{label} {fraction}" in why
    for d in (64, 512):
        assert roofline.matmul(d, d, d).intensity_fraction() == Fraction(d, 6)
    assert "I = d/6" in option(question("roofline"), "a d x d matrix product").why


def test_the_right_options_are_not_always_in_the_same_places():
    places = [q.correct for q in QUIZ.questions]
    assert len(set(places)) >= 5
    assert sum(0 not in p for p in places) >= len(places) // 2
    assert any(max(p) == len(q.options) - 1 for p, q in zip(places, QUIZ.questions))


def test_sections_five_to_seven_are_asked():
    texts = " ".join(q.text for q in QUIZ.questions)
    for topic in ("loss scale", "master copy", "backward pass still runs", "roofline"):
        assert topic in texts
