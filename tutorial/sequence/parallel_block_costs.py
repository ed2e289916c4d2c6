"""What one block costs each device per step: tensor parallel against tensor + sequence parallel.

**Bytes sent** (forward and backward), read off the ring's schedules
(:func:`~tutorial.sequence.sequence_collectives.ring_plan`) that the executors run:

    tensor parallel      forward g, g: 2 allreduces      backward f, f: 2 allreduces
    + sequence parallel  forward g, ḡ, g, ḡ: 2 all-gathers + 2 reduce-scatters,
                         backward the same, swapped

The ring allreduce's steps are its reduce-scatter steps followed by its all-gather steps,
so 4 allreduces send, device by device, what 4 reduce-scatters and 4 all-gathers send:
the two counts are equal for every K, even and uneven, because the schedules are. Each
message is (batch, seq, model_dim) numbers; a device sends about 2(K-1)/K of one per
allreduce. Sequence parallelism also sums the replicated weights' gradients (5 x
model_dim numbers, one allreduce), counted apart: ``replicated_gradients``.

**Activations kept for the backward**, a count (not a measurement, which is
:mod:`tutorial.sequence.parallel_block_memory`): the arrays MXNet's autograd keeps for
the block's NDArray operations, read from what each operation's gradient needs (a matrix
product its inputs, ``exp`` and ``relu`` their outputs, a product its factors, an add or
a transpose nothing), arrays of one number per position (means, deviations) left out:

    region     per device, tensor parallel      + sequence parallel
    sequence   batch x seq x model_dim           batch x seq_d x model_dim  (1/K)
    gathered   batch x seq x model_dim           the same
    heads      batch x seq x heads_d x head_dim  the same
    scores     batch x heads_d x seq x seq       the same
    hidden     batch x seq x hidden_d            the same

The residual adds keep nothing; the LayerNorms keep their centred input and the
normalised value before the gain, the "sequence" rows below: replicated under tensor
parallelism, 1/K under sequence parallelism, so the count falls by 4 x model_dim numbers
per position x (1 - 1/K).

>>> b = bytes_per_block(batch=1, seq=4, model_dim=2, devices=3)   # 8 bytes a position
>>> b.tensor_parallel, b.sequence_parallel      # 4 x (3 + 3, 3 + 2, 2 + 3) positions x 8 B
([192, 160, 160], [192, 160, 160])
>>> tp = kept_bytes(8, 128, 256, 8, 1024, devices=4, sequence_parallel=False)
>>> sp = kept_bytes(8, 128, 256, 8, 1024, devices=4, sequence_parallel=True)
>>> tp[0] - sp[0] == 4 * 8 * (128 - 32) * 256 * 4
True
"""

from typing import List, NamedTuple

from tutorial.parallel.collectives import bytes_sent, schedule
from tutorial.sequence.sequence_collectives import ITEMSIZE, ring_plan, sequence_shards
from tutorial.sequence.sequence_parallel_block import REPLICATED
from tutorial.sequence.tensor_parallel_block import tensor_sharding
from tutorial.validate import check_count

SEQUENCE, GATHERED, HEADS, SCORES, HIDDEN = "sequence", "gathered", "heads", "scores", "hidden"


class Kept(NamedTuple):
    """``count`` arrays of the ``region``'s size, kept for the backward."""
    name: str
    region: str
    count: int
    causal_only: bool = False


KEPT = (
    Kept("LayerNorms: centred input, normalised value before the gain", SEQUENCE, 4),
    Kept("LayerNorm outputs gathered: the input of W_q, W_k, W_v and of W1", GATHERED, 2),
    Kept("queries, keys, values and the heads' output (the input of W_o)", HEADS, 4),
    Kept("scores (their max reads them), their exp, the softmax", SCORES, 3),
    Kept("the causal mask, broadcast to the scores", SCORES, 1, causal_only=True),
    Kept("relu's output: the input of W2", HIDDEN, 1),
)


class BlockBytes(NamedTuple):
    """Bytes each device sends for one block in one step (forward + backward)."""
    tensor_parallel: List[int]
    sequence_parallel: List[int]
    replicated_gradients: List[int]     # sequence parallel only: the replicated weights


def _times(n, sent):
    return [n * s for s in sent]


def _plus(*lists):
    return [sum(column) for column in zip(*lists)]


def bytes_per_block(batch, seq, model_dim, devices, itemsize=ITEMSIZE):
    """A :class:`BlockBytes` from the ring's schedules over ``seq`` positions of
    ``batch x model_dim`` numbers."""
    width = check_count("batch", batch) * check_count("model_dim", model_dim)
    k = len(sequence_shards(seq, devices))
    allreduce = bytes_sent(ring_plan(k, seq, width, itemsize))
    reduce_scatter, all_gather = (bytes_sent(ring_plan(k, seq, width, itemsize, name))
                                  for name in ("reduce-scatter", "all-gather"))
    replicated = bytes_sent(schedule("ring", k, len(REPLICATED) * model_dim, itemsize))
    return BlockBytes(_times(4, allreduce),
                      _plus(_times(4, reduce_scatter), _times(4, all_gather)), replicated)


def region_elements(region, batch, seq, model_dim, positions, heads, features, hidden):
    """The elements of one array of ``region`` on a device that holds ``positions``
    positions, ``heads`` heads (``features`` columns of W_q) and ``hidden`` units."""
    return {SEQUENCE: batch * positions * model_dim, GATHERED: batch * seq * model_dim,
            HEADS: batch * seq * features, SCORES: batch * heads * seq * seq,
            HIDDEN: batch * seq * hidden}[region]


def kept_bytes(batch, seq, model_dim, heads, hidden, devices, sequence_parallel,
               causal=False, itemsize=ITEMSIZE):
    """Bytes of activations each device keeps for one block's backward (a count, from
    :data:`KEPT`): a list, one entry per device."""
    batch = check_count("batch", batch)
    sharding = tensor_sharding(model_dim, heads, hidden, devices)
    positions = [s.size for s in sequence_shards(seq, devices)] if sequence_parallel \
        else [seq] * sharding.devices
    out = []
    for d in range(sharding.devices):
        (a, b), (u, v), (h0, h1) = sharding.features(d), sharding.hidden[d], sharding.heads[d]
        out.append(itemsize * sum(
            kept.count * region_elements(kept.region, batch, seq, model_dim, positions[d],
                                         h1 - h0, b - a, v - u)
            for kept in KEPT if causal or not kept.causal_only))
    return out
