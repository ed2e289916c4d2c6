"""What a layout costs each device per step: memory held and bytes sent, from the course's counts.

For a :class:`~tutorial.sequence.layout.Transformer` on a
:class:`~tutorial.sequence.layout.Layout`, per device, float32 training with Adam:

    weights, gradients   the stage's :class:`~.layout.Parameters`, ZeRO-sharded over the
    optimizer state      replicas by :func:`tutorial.memory.model_states.per_device` (Adam:
                         2 copies; float32, so no master copy); stage 3's weights and
                         stage 2-3's gradients add one block held whole, as notebook 13's
                         :func:`~tutorial.memory.footprint.footprint` counts it
    activations          :func:`~.parallel_block_costs.kept_bytes` for one micro-batch at
                         seq / C positions, times layers / P, times the micro-batches the
                         stage holds at once (:func:`~tutorial.parallel.pipeline.schedules.
                         peak_held` of the 1F1B schedule); see :func:`kept_per_block`
    data_sent            the gradient's ring allreduce over the replicas (ZeRO: reduce-
                         scatter + all-gather, stage 3 two all-gathers): :func:`ring_bytes`
    tensor_sent          :func:`~.parallel_block_costs.bytes_per_block` per block and micro-
                         batch (+ SP's replicated weights' gradients once per block and step)
    context_sent         ring attention's keys and values (:func:`~.ring_schedule.bytes_sent`
                         of :func:`~.ring_schedule.schedule`) per block and micro-batch,
                         forward, and the same again backward: autograd sends the gradients
                         dK, dV back round the ring, block for block (the course's executor;
                         a FlashAttention-style ring that recomputes sends K, V again too)
    pipeline_sent        per micro-batch, the stage's output forward and its input's
                         gradient backward, read off the 1F1B schedule's tasks (every
                         tensor rank sends its copy; under SP its 1/T of the positions)
    expert_sent          4 all-to-alls per MoE block and micro-batch (dispatch and combine,
                         forward and backward), every expert at capacity (uniform routing,
                         :func:`~tutorial.experts.capacity.expert_capacity`), by
                         :func:`tutorial.experts.all_to_all.bytes_sent`

A device's numbers differ by stage (the tables, the output layer, the micro-batches held,
the first and last stage send one way only): :func:`stage_costs` lists them, :func:`cost`
takes the most of each number over the stages, as ``footprint`` takes each kind's most.
Left out: the output layer's logits kept for the loss (batch x seq x vocab / T numbers on
the last stage), the vocab-parallel embedding's collectives, the router's probabilities,
the pipeline's bubble and every time (this counts bytes, not seconds). ZeRO's gathers
and reduce-scatters run once per step, whatever the micro-batches.

>>> from tutorial.sequence.layout import Layout, Transformer
>>> tiny = Transformer(layers=1, model_dim=4, heads=2, hidden=8, seq=4, batch=2, vocab=5)
>>> c = cost(tiny, Layout(data=2))     # 225 parameters of 4 bytes, Adam's 2 copies
>>> c.weights, c.gradients, c.optimizer_state, c.data_sent  # ring over 2: 113 + 112 sent
(900, 900, 1800, 900)
"""

from typing import NamedTuple

from tutorial.experts import all_to_all
from tutorial.experts.capacity import expert_capacity
from tutorial.memory.model_states import per_device
from tutorial.memory.sharding import phase
from tutorial.parallel.collectives import bytes_sent, schedule
from tutorial.parallel.pipeline.schedules import peak_held
from tutorial.parallel.pipeline.schedules import schedule as pipeline_schedule
from tutorial.sequence import ring_schedule
from tutorial.sequence.layout import block_parameters, check_layout, stage_parameters
from tutorial.sequence.parallel_block_costs import KEPT, SCORES, bytes_per_block, kept_bytes

ADAM_COPIES = 2


class Cost(NamedTuple):
    """Bytes one device holds, by kind, and sends per step, by kind of parallelism."""
    weights: int            # model_states.per_device (ZeRO over the replicas)
    gradients: int          # the same
    optimizer_state: int    # the same, Adam's 2 copies
    activations: int        # parallel_block_costs.kept_bytes x blocks x schedules.peak_held
    data_sent: int          # the ring's schedule (sharding.phase for ZeRO), bytes_sent
    tensor_sent: int        # parallel_block_costs.bytes_per_block
    context_sent: int       # ring_schedule.schedule, ring_schedule.bytes_sent
    pipeline_sent: int      # the 1F1B schedule's tasks x one boundary activation
    expert_sent: int        # all_to_all.schedule and reverse, all_to_all.bytes_sent

    @property
    def states(self):
        return self.weights + self.gradients + self.optimizer_state

    @property
    def memory(self):
        return self.states + self.activations

    @property
    def sent(self):
        return sum(self[4:])


def microbatch(model, layout):
    """(sequences, positions) one device works on per micro-batch."""
    return (model.batch // (layout.data * layout.microbatches),
            model.seq // layout.context)


def ring_bytes(size, devices, zero, itemsize):
    """Most bytes a device sends summing a gradient of ``size`` numbers over ``devices``:
    the ring allreduce, or (ZeRO) its reduce-scatter and one all-gather of the weights,
    two in stage 3 (what :func:`tutorial.memory.footprint.sent_per_step` counts)."""
    if size == 0 or devices == 1:
        return 0
    plans = [schedule("ring", devices, size, itemsize)] if zero == 0 else \
        [phase(devices, size, "reduce-scatter", itemsize)] + \
        [phase(devices, size, "all-gather", itemsize)] * (2 if zero == 3 else 1)
    return max(sum(column) for column in zip(*(bytes_sent(p) for p in plans)))


def model_states(size, devices, zero, itemsize, block):
    """(weights, gradients, optimizer state) bytes of ``size`` numbers summed over
    ``devices`` replicas, from :func:`~tutorial.memory.model_states.per_device` (the
    busiest shard), plus one ``block`` whole where ZeRO shards it."""
    if size == 0:
        return 0, 0, 0
    kinds = [dict(weight_bytes=itemsize, grad_bytes=0, state_bytes=0),
             dict(weight_bytes=0, grad_bytes=itemsize, state_bytes=0),
             dict(weight_bytes=0, grad_bytes=0, state_bytes=ADAM_COPIES * itemsize)]
    held = [max(per_device(size, devices, zero, device=d, **kind) for d in range(devices))
            for kind in kinds]
    sharded = devices > 1
    return (held[0] + itemsize * block * (sharded and zero == 3),
            held[1] + itemsize * block * (sharded and zero >= 2), held[2])


def kept_per_block(model, layout):
    """Bytes one block keeps for one micro-batch on the busiest device: :func:`kept_bytes`
    at seq / C positions, with two changes. Under context parallelism, the scores are
    those of the tiles the ring schedule computes (the device's queries against every
    block it attends to; the causal mask kept only on the partly masked tiles), and the
    key/value blocks it received are kept too (autograd keeps them for the backward).
    Under experts, the MLP keeps, for the rows its experts take at capacity, their input,
    relu output and output (which the gates multiply), instead of the dense MLP's relu
    output per token."""
    b, s = microbatch(model, layout)
    t, d, itemsize = layout.tensor, model.model_dim, model.itemsize
    heads, hidden = model.heads // t, model.hidden // t
    base = max(kept_bytes(b, s, d, model.heads, model.hidden, t, layout.sequence_parallel,
                          causal=True, itemsize=itemsize))
    if model.experts:
        rows = expert_capacity(b * s, model.experts, model.k, model.capacity_factor) * \
            model.experts
        base += itemsize * (rows * (2 * d + hidden) - b * s * hidden)
    kv = ring_schedule.kv_bytes_per_position(b, heads, d // model.heads, itemsize)
    plan = ring_schedule.schedule(model.seq, layout.context, causal=True, position_bytes=kv)
    scores, mask = (sum(k.count for k in KEPT if k.region == SCORES and k.causal_only == c)
                    for c in (False, True))
    out = []
    for dev in range(plan.num_devices):
        tiles = [tile for step in plan.steps for tile in step[dev].tiles]
        area = sum(tile.area for tile in tiles)              # query-key pairs in its tiles
        masked = sum(tile.area for tile in tiles if tile.mask == ring_schedule.PARTLY)
        work = [step[dev] for step in plan.steps if step[dev].tiles]
        received = sum(plan.held[w.block].size for w in work if w.block != dev)
        out.append(base + kv * received + itemsize * b * heads *
                   (scores * area + mask * masked - (scores + mask) * s * s))
    return max(out)


def sent_per_microbatch(model, layout):
    """(tensor, context, expert) bytes one block sends per micro-batch, forward and
    backward, on the busiest device."""
    b, s = microbatch(model, layout)
    d, itemsize = model.model_dim, model.itemsize
    blocks = bytes_per_block(b, s, d, layout.tensor, itemsize)
    tensor = max(blocks.sequence_parallel if layout.sequence_parallel else
                 blocks.tensor_parallel)
    kv = ring_schedule.kv_bytes_per_position(b, model.heads // layout.tensor,
                                             d // model.heads, itemsize)
    ring = ring_schedule.schedule(model.seq, layout.context, causal=True, position_bytes=kv)
    context = 2 * max(ring_schedule.bytes_sent(ring))
    expert = 0
    if model.experts:
        each = expert_capacity(b * s, model.experts, model.k, model.capacity_factor) * \
            (model.experts // layout.expert)
        plan = all_to_all.schedule([[each] * layout.expert] * layout.expert, d * itemsize)
        expert = 2 * max(a + r for a, r in zip(all_to_all.bytes_sent(plan),
                                                all_to_all.bytes_sent(all_to_all.reverse(plan))))
    return tensor, context, expert


def stage_costs(model, layout):
    """One :class:`Cost` per pipeline stage (its busiest device)."""
    check_layout(model, layout)
    p, m, itemsize = layout.pipeline, layout.microbatches, model.itemsize
    blocks = model.layers // p
    b, s = microbatch(model, layout)
    plan = pipeline_schedule("1f1b", p, m)
    in_flight = peak_held(plan)
    tensor, context, expert = sent_per_microbatch(model, layout)
    replicated = max(bytes_per_block(b, s, model.model_dim, layout.tensor, itemsize)
                     .replicated_gradients) if layout.sequence_parallel else 0
    boundary = b * (s // layout.tensor if layout.sequence_parallel else s) * \
        model.model_dim * itemsize
    one_block, kept = block_parameters(model, layout), kept_per_block(model, layout)
    expert_replicas = layout.replicas // layout.expert
    out = []
    for stage in range(p):
        held = stage_parameters(model, layout, stage)
        dense = model_states(held.dense, layout.replicas, layout.zero, itemsize,
                             one_block.dense)
        experts = model_states(held.experts, expert_replicas, layout.zero, itemsize,
                               one_block.experts)
        messages = sum(1 for task in plan.order(stage)
                       if (task.kind == "F" and stage < p - 1) or (task.kind == "B" and stage))
        out.append(Cost(
            *(a + e for a, e in zip(dense, experts)),
            kept * blocks * in_flight[stage],
            ring_bytes(held.dense, layout.replicas, layout.zero, itemsize) +
            ring_bytes(held.experts, expert_replicas, layout.zero, itemsize),
            blocks * (m * tensor + replicated), blocks * m * context,
            messages * boundary, blocks * m * expert))
    return out


def cost(model, layout):
    """The most of each number of :class:`Cost` over the pipeline's stages."""
    return Cost(*(max(column) for column in zip(*stage_costs(model, layout))))
