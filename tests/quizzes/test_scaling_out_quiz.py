"""The scaling-out quiz: its numbers are what the library computes."""

import numpy as np

from tutorial.parallel.compression import two_bit_quantise
from tutorial.parallel.sign_sgd import majority_vote
from tutorial.parallel.compression_study import bytes_per_step
from tutorial.parallel.local_sgd import averaging_steps
from tutorial.parallel.scaling_workload import ScalingJob
from tutorial.quizzes.scaling_out import QUIZ

SHAPES = [p.shape for p in ScalingJob().net().collect_params().values()]


def right_options(number):
    return {o.text for o in QUIZ.questions[number].options if o.is_right}


def test_the_rounds_question_is_the_schedule():
    assert len(averaging_steps(512, 16)) == 32
    assert len(averaging_steps(512, 16, switch=128)) == 152
    assert len(averaging_steps(512, 1)) == 512
    assert any("152" in text for text in right_options(1))


def test_the_threshold_question_is_the_quantiser():
    q, r = two_bit_quantise([0.3], [0.0], 0.5)
    assert q.tolist() == [0.0] and np.isclose(r[0], 0.3)
    q, r = two_bit_quantise([0.3], r, 0.5)
    assert q.tolist() == [0.5] and np.isclose(r[0], 0.1)


def test_the_bytes_question_is_the_notebooks_mlp():
    assert sum(int(np.prod(s)) for s in SHAPES) == 4810 and len(SHAPES) == 4
    assert bytes_per_step(SHAPES, "none")[0] == 19240
    assert bytes_per_step(SHAPES, "2bit") == (1204, 19240)
    assert bytes_per_step(SHAPES, "sign") == (1204, 1204)
    assert {"2-bit compression: 1,204 bytes, about 16 times less than 32-bit",
            "signSGD: 1,204 bytes, 2 bits per weight (a sign is -1, 0 or +1)"} == right_options(3)
    assert "signSGD: 604 bytes, one bit per weight" not in right_options(3)


def test_the_vote_question_is_the_majority_vote():
    assert majority_vote([[1.0], [2.0], [-1.0], [-3.0]]).tolist() == [0.0]


def test_the_outvoted_question_is_one_signsgd_step():
    from tutorial.parallel.sign_sgd import sign_sgd_step
    assert sign_sgd_step([0.0], [[10.0], [-1.0], [-1.0]], lr=0.5).tolist() == [0.5]
    assert any(text.startswith("+lr") for text in right_options(5))


def test_the_ring_question_is_the_side_by_side_formulas():
    from tutorial.parallel.hvd.side_by_side import formula_bytes
    M = 19240
    assert formula_bytes("ps-lite dist_sync", M, 16, num_servers=1)[1] == 16 * M
    assert formula_bytes("Horovod ring", M, 16)[1] == round(2 * 15 / 16 * M) < 2 * M
    assert formula_bytes("ps-lite dist_sync", M, 16, num_servers=1)[0] == M
