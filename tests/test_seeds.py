"""TUTORIAL_SEED=K shifts every seed by K: in this process, and in one that imports tutorial."""

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tutorial import seeds

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def shifted():
    seeds.install(3)
    yield 3
    seeds.uninstall()


def test_offset_reads_the_variable_and_refuses_anything_but_a_whole_number():
    assert seeds.offset({}) == 0 and seeds.offset({"TUTORIAL_SEED": " 4 "}) == 4
    for bad in ("-1", "two", "1.5"):
        with pytest.raises(ValueError, match="TUTORIAL_SEED"):
            seeds.offset({"TUTORIAL_SEED": bad})


def test_shift_moves_fixed_seeds_only():
    assert seeds.shift(np.int64(5), 2) == 7 and seeds.shift((1, 9), 2) == (3, 9)
    sequence = np.random.SeedSequence(1)
    assert seeds.shift(sequence, 2) is sequence and seeds.shift(True, 2) is True
    assert seeds.shift([], 2) == [] and seeds.shift([1.5], 2) == [1.5]


def test_numpy_generators_draw_what_the_shifted_seed_draws(shifted):
    original = np.random.default_rng.unshifted
    assert np.array_equal(np.random.default_rng(0).integers(10**9, size=4),
                          original(shifted).integers(10**9, size=4))
    assert not np.array_equal(np.random.default_rng(0).integers(10**9, size=4),
                              original(0).integers(10**9, size=4))
    assert np.array_equal(np.random.default_rng([0, 1]).random(3), original([3, 1]).random(3))
    np.random.seed(0)
    a = np.random.random(3)
    np.random.seed.unshifted(3)
    assert np.array_equal(a, np.random.random(3))


def test_python_random_is_shifted(shifted):
    random.seed(1)
    a = random.random()
    random.seed.unshifted(1 + shifted)
    assert a == random.random()


def test_uninstall_restores_the_original_draws(shifted):
    seeds.uninstall()
    assert not hasattr(np.random.default_rng, "unshifted")
    assert np.random.default_rng(0).integers(10**9) == np.random.Generator(
        np.random.PCG64(0)).integers(10**9)


def test_installing_again_replaces_the_shift_instead_of_adding_to_it(shifted):
    seeds.install(5)
    assert np.random.default_rng(0).integers(10**9) == \
        np.random.default_rng.unshifted(5).integers(10**9)


DRAW = ("import tutorial, numpy as np, mxnet as mx; mx.random.seed(0); "
        "print(np.random.default_rng(0).integers(10**9), "
        "mx.nd.random.uniform(shape=(3,)).asnumpy().tolist())")


def _draw(env_seed, code=DRAW):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("TUTORIAL_SEED", None)
    if env_seed is not None:
        env["TUTORIAL_SEED"] = str(env_seed)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_a_process_that_imports_tutorial_shifts_numpy_and_mxnet_seeds():
    """mxnet is imported after tutorial here, so its seed goes through the import hook."""
    unshifted, shifted = _draw(None), _draw(2)
    numpy_draw, mxnet_draw = shifted.split(" ", 1)
    assert numpy_draw != unshifted.split(" ", 1)[0] and mxnet_draw != unshifted.split(" ", 1)[1]
    by_hand = DRAW.replace("mx.random.seed(0)", "mx.random.seed(2)").replace(
        "default_rng(0)", "default_rng(2)")
    assert shifted == _draw(None, by_hand)
    assert _draw(0) == unshifted
