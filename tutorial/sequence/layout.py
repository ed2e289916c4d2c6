"""A transformer's shape and a layout of it over devices, as data, and what each device holds.

A layout multiplies four degrees into devices = D x T x C x P, and places experts inside:

    D  data       a slice of the batch per device; the gradients are summed (ring
                  allreduce), ZeRO stage 1-3 shards the model states (Rajbhandari et al. 2020)
    T  tensor     each block's heads and hidden units cut over T devices (Megatron, Shoeybi
                  et al. 2019); ``sequence_parallel`` also cuts the positions of the
                  LayerNorms and residuals over them (Korthikanti et al. 2022)
    C  context    a slice of every sequence's positions per device; ring attention passes
                  the keys and values round (Liu et al. 2023)
    P  pipeline   layers / P consecutive blocks per stage, 1F1B over ``microbatches``
                  (Narayanan et al. 2021)
    E  expert     the experts of every MoE block spread over E devices, tokens sent to them
                  by all-to-all (GShard, Lepikhin et al. 2020)

Conventions, one choice each:

- **Replicas.** The D x C devices of one tensor rank and one pipeline stage hold the same
  dense weights (context-parallel devices see other positions of the same sequences), so
  their gradients are summed and ZeRO shards over all D x C of them, as Megatron-LM does
  with its context-parallel group.
- **Experts.** Those D x C devices form D x C / E expert groups of E devices; each device
  of a group holds experts / E of them (contiguous, as
  :func:`~tutorial.experts.dispatch.place_experts` places them), cut over T by hidden
  units as the dense MLP is, so E must divide both ``experts`` and D x C. An expert's
  weights are replicated over the D x C / E groups: summed and ZeRO-sharded over those.
  The router is a dense weight. Every block's MLP is an MoE when ``experts`` > 0 (Switch
  Transformers uses every other block). Each tensor rank routes the MLP's whole input (as
  the dense block has it) and exchanges it with the same rank of the other devices of its
  group; the block's tensor-parallel collectives stay as they are.
- **Embeddings** as the course's transformer (:mod:`tutorial.sequence.transformer`): a token
  table, a position table of ``seq`` rows, a final LayerNorm and an output layer with a bias,
  *not* tied to the token table (GPT-2 ties them: 124 M parameters for GPT-2 small, 163 M
  here). Under T the token table's rows and the output layer's columns are cut over the
  vocabulary (Megatron's vocab-parallel embedding), the rest replicated; under P the first
  stage holds the two tables, the last the final norm and the output layer.

Every count reads a course function: a block's shapes on tensor rank t are
:func:`~tutorial.sequence.tensor_parallel_block.expected_shapes` (the shapes of
:func:`~tutorial.sequence.block.init_block` when T = 1), cut by
:func:`~tutorial.sequence.tensor_parallel_block.tensor_sharding`.

>>> tiny = Transformer(layers=1, model_dim=4, heads=2, hidden=8, seq=3, batch=2, vocab=5)
>>> parameters(tiny)      # block 4x16 + 2x32 + 8 + 5x4 = 156; tables 20 + 12; 8; 20 + 5
221
>>> stage_parameters(tiny, Layout(tensor=2), stage=0)   # block 88; vocab rows 3 of 5: 24 + 23
Parameters(dense=135, experts=0)
>>> Layout(data=2, tensor=2, sequence_parallel=True, zero=3).name, Layout().devices
('D2 x T2+SP ZeRO-3', 1)
"""

from typing import NamedTuple

import numpy as np

from tutorial.experts.capacity import check_capacity_factor, check_k
from tutorial.parallel.collectives.schedule import chunk_bounds
from tutorial.sequence.tensor_parallel_block import expected_shapes, tensor_sharding
from tutorial.validate import check_count


class Transformer(NamedTuple):
    """A decoder-only transformer's shape and one step's batch."""
    layers: int
    model_dim: int
    heads: int
    hidden: int                  # the MLP's (each expert's) hidden units
    seq: int                     # positions per sequence (the position table's rows)
    batch: int                   # sequences per step, over all devices
    vocab: int
    experts: int = 0             # 0: a dense MLP in every block
    k: int = 1                   # experts per token (top-k)
    capacity_factor: float = 1.0
    itemsize: int = 4            # bytes per number: float32


class Layout(NamedTuple):
    """Degrees of parallelism; devices = data x tensor x context x pipeline."""
    data: int = 1
    tensor: int = 1
    sequence_parallel: bool = False
    context: int = 1
    pipeline: int = 1
    expert: int = 1              # inside data x context: devices one MoE block's experts span
    zero: int = 0                # ZeRO stage over the data x context replicas
    microbatches: int = 1        # per step, for the pipeline's 1F1B

    @property
    def devices(self):
        return self.data * self.tensor * self.context * self.pipeline

    @property
    def replicas(self):
        """Devices holding the same dense weights: data x context."""
        return self.data * self.context

    @property
    def name(self):
        parts = [f"D{self.data}"] if self.data > 1 else []
        if self.tensor > 1:
            parts.append(f"T{self.tensor}" + ("+SP" if self.sequence_parallel else ""))
        parts += [f"C{self.context}"] * (self.context > 1)
        parts += [f"P{self.pipeline}/m{self.microbatches}"] * (self.pipeline > 1)
        parts += [f"E{self.expert}"] * (self.expert > 1)
        return " x ".join(parts or ["1 device"]) + (f" ZeRO-{self.zero}" if self.zero else "")


class Parameters(NamedTuple):
    """Numbers one device holds, by the group its gradient is summed over."""
    dense: int                   # over the data x context replicas
    experts: int                 # over the data x context / expert replicas of its experts


def check_model(model):
    """``model`` if it is a :class:`Transformer` whose sizes fit together."""
    if not isinstance(model, Transformer):
        raise TypeError(f"model must be a Transformer(layers, model_dim, heads, hidden, seq, "
                        f"batch, vocab, ...), got {type(model).__name__}")
    for name in ("layers", "model_dim", "heads", "hidden", "seq", "batch", "vocab",
                 "itemsize"):
        check_count(f"model.{name}", getattr(model, name))
    check_count("model.experts", model.experts, low=0, what="0 for a dense MLP")
    if model.model_dim % model.heads:
        raise ValueError(f"model.heads={model.heads} does not divide model.model_dim="
                         f"{model.model_dim}: every head needs model_dim / heads features")
    if model.experts:
        check_k(model.k, model.experts)
        if check_capacity_factor(model.capacity_factor) is None:
            raise ValueError("model.capacity_factor=None sets no capacity: give a number "
                             "> 0 (1.0 fits an even router's tokens exactly)")
    return model


def _divides(part, name, whole, what, fix):
    if whole % part:
        raise ValueError(f"{name}={part} does not divide {what}={whole}: {fix}")


def check_layout(model, layout):
    """``layout`` if its degrees fit ``model`` (each divides what it cuts)."""
    check_model(model)
    if not isinstance(layout, Layout):
        raise TypeError(f"layout must be a Layout(data, tensor, ...), got "
                        f"{type(layout).__name__}")
    for name in ("data", "tensor", "context", "pipeline", "expert", "microbatches"):
        check_count(f"layout.{name}", getattr(layout, name))
    if not isinstance(layout.sequence_parallel, (bool, np.bool_)):
        raise TypeError(f"layout.sequence_parallel must be True or False, got "
                        f"{layout.sequence_parallel!r}")
    if isinstance(layout.zero, bool) or layout.zero not in (0, 1, 2, 3):
        raise ValueError(f"layout.zero must be 0, 1, 2 or 3 (the ZeRO stage over the data "
                         f"x context replicas; 0 is plain data parallelism), got "
                         f"{layout.zero!r}")
    t, c = layout.tensor, layout.context
    _divides(t, "layout.tensor", model.heads, "model.heads", "each device needs whole heads")
    _divides(t, "layout.tensor", model.hidden, "model.hidden", "use a divisor of both")
    _divides(c, "layout.context", model.seq, "model.seq",
             "each context-parallel device needs seq / context positions")
    if layout.sequence_parallel:
        if t == 1:
            raise ValueError("layout.sequence_parallel=True needs layout.tensor >= 2: it cuts "
                             "the positions over the tensor-parallel devices")
        _divides(t, "layout.tensor", model.seq // c, "the positions per device (seq / "
                 "context)", "sequence parallelism gives each tensor rank a share of them")
    _divides(layout.pipeline, "layout.pipeline", model.layers, "model.layers",
             "every stage needs layers / pipeline whole blocks")
    _divides(layout.data * layout.microbatches, "layout.data x layout.microbatches",
             model.batch, "model.batch", "every micro-batch needs whole sequences")
    if layout.expert > 1 and not model.experts:
        raise ValueError(f"layout.expert={layout.expert} but the model has no experts: use "
                         f"expert=1, or a model with experts > 0")
    if model.experts:
        _divides(layout.expert, "layout.expert", model.experts, "model.experts",
                 "every device of an expert group needs the same number of experts")
        _divides(layout.expert, "layout.expert", layout.replicas, "layout.data x "
                 "layout.context", "the experts are spread inside the data x context devices")
    return layout


def _size(shapes):
    return sum(int(np.prod(s)) for s in shapes)


def block_shapes(model, tensor=1, rank=0):
    """Tensor rank ``rank``'s block shapes (a ``BlockWeights`` of shape tuples)."""
    return expected_shapes(tensor_sharding(model.model_dim, model.heads, model.hidden,
                                           tensor), rank)


def block_parameters(model, layout, rank=0):
    """:class:`Parameters` of one block on tensor rank ``rank``."""
    shapes = block_shapes(model, layout.tensor, rank)
    attention = _size(shapes.norm1) + _size(shapes.attention) + _size(shapes.norm2)
    if not model.experts:
        return Parameters(attention + _size(shapes.mlp), 0)
    router = model.model_dim * model.experts
    return Parameters(attention + router, _size(shapes.mlp) * model.experts // layout.expert)


def embedding_parameters(model, layout, stage, rank=0):
    """Numbers of the tables (first stage) and the final norm and output layer (last
    stage) on pipeline ``stage``, tensor rank ``rank``."""
    a, b = chunk_bounds(model.vocab, layout.tensor)[rank]
    first = (b - a) * model.model_dim + model.seq * model.model_dim
    last = 2 * model.model_dim + model.model_dim * (b - a) + (b - a)
    return first * (stage == 0) + last * (stage == layout.pipeline - 1)


def stage_parameters(model, layout, stage, rank=0):
    """:class:`Parameters` pipeline ``stage``'s tensor rank ``rank`` holds."""
    check_layout(model, layout)
    per_block = block_parameters(model, layout, rank)
    blocks = model.layers // layout.pipeline
    return Parameters(blocks * per_block.dense + embedding_parameters(model, layout, stage,
                                                                      rank),
                      blocks * per_block.experts)


def parameters(model):
    """Every number of the model (experts counted once each)."""
    whole = stage_parameters(model, Layout(), stage=0)
    return whole.dense + whole.experts
