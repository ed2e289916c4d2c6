"""One training step of the transformer as data: the operations autograd records, the
arrays each makes, reads and keeps, and the step replayed moment by moment.

Recording a forward, MXNet keeps for each operation the inputs and outputs its gradient
reads (``Imperative::RecordOp`` asks the operator's ``FGradient``): ``exp`` keeps its
output, ``dot`` and ``broadcast_div`` their inputs, ``broadcast_add`` and ``transpose``
nothing, ``where`` its condition. :func:`tape` lists the operations of
:class:`~tutorial.sequence.transformer.Transformer` (its blocks are
:func:`tutorial.sequence.block.block`) and a cross-entropy loss as :class:`Op` records;
the weights are left out (they exist before and after the step, with their gradients).

:func:`walk` replays the step and returns the floats alive after each moment:

- forward: each operation makes its output; an array goes after its last use unless a
  backward keeps it (a block's input lives until the block returns);
- backward, in reverse: an operation's gradient, summed first if several operations read
  its output (MXNet's ``ElementWiseSum``), gives one new gradient per input it read; then
  that gradient and the arrays kept only for this operation go.

Two things MXNet does are replayed on purpose: it skips the backward of ``max`` (its
gradient comes from ``stop_gradient``: always zero), yet the masked scores ``max`` kept
stay until the whole backward ends; and ``where``'s backward also fills a gradient for
the constant it reads, freed at once. MXNet's temporary workspaces are not counted: they
are reused from one step to the next (:mod:`.length_memory` measures after a warm-up).

>>> ops = block_ops("", "x", "y")
>>> kind = {op.out: op.kind for op in ops}
>>> sorted({k for op in ops for k in op.keeps if kind[k] == "scores"})
['scores.exp', 'scores.keep', 'scores.masked', 'scores.weights']
>>> moments = walk(Model(batch=1, seq=3, model_dim=4, heads=2, hidden=8, blocks=1, vocab=5))
>>> moments[0], moments[-1]
(('forward: embedded', 12), ('backward: done', 0))
"""

from typing import NamedTuple

from tutorial.validate import check_count


class Model(NamedTuple):
    """The sizes of a step: tokens (batch, seq) through ``blocks`` blocks."""
    batch: int
    seq: int
    model_dim: int
    heads: int
    hidden: int             # the MLP's hidden width
    blocks: int
    vocab: int


def check_model(model):
    """Raise a ValueError sentence unless every size is a whole number that fits."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a Model(batch, seq, model_dim, heads, hidden, "
                        f"blocks, vocab), got {type(model).__name__}")
    for name, value in model._asdict().items():
        check_count(name, value, low=0 if name == "blocks" else 1)
    if model.model_dim % model.heads:
        raise ValueError(f"heads={model.heads} does not divide model_dim={model.model_dim}: "
                         f"choose heads among the divisors of {model.model_dim}")
    return model


def sizes(model):
    """Floats in an array of each kind."""
    b, s, d, h = model.batch, model.seq, model.model_dim, model.heads
    return {"token": b * s * d, "scores": b * h * s * s, "hidden": b * s * model.hidden,
            "row": b * s, "head_row": b * h * s, "logit": b * s * model.vocab,
            "pair": s * s, "slice": s * d, "one": 1}


class Op(NamedTuple):
    """One operation of the step, as autograd records it."""
    out: str                # the array it makes ("" marks the end of a block)
    kind: str = "token"     # its size (a key of :func:`sizes`)
    reads: tuple = ()       # arrays in the graph it reads: each gets a gradient back
    keeps: tuple = ()       # arrays its backward reads: autograd keeps them until then
    also: tuple = ()        # arrays it reads without a gradient (constants, views' bases)
    view: bool = False      # a reshape: shares the memory of what it reads
    backward: bool = True   # False: its gradient is always zero and MXNet skips it
    scratch: str = ""       # kind of one more array its backward fills and frees at once


def layer_norm_ops(p, x, out):
    """:func:`tutorial.sequence.block.layer_norm`: mean, subtract, square, mean, + eps,
    sqrt, divide, times gain, plus bias."""
    return [Op(p + "mean", "row", (x,)), Op(p + "centred", "token", (x, p + "mean")),
            Op(p + "square", "token", (p + "centred",), (p + "centred",)),
            Op(p + "var", "row", (p + "square",)), Op(p + "var_eps", "row", (p + "var",)),
            Op(p + "std", "row", (p + "var_eps",), (p + "std",)),
            Op(p + "scaled", "token", (p + "centred", p + "std"), (p + "centred", p + "std")),
            Op(p + "gained", "token", (p + "scaled",), (p + "scaled",)),
            Op(out, "token", (p + "gained",))]


def block_ops(p, x, y):
    """The operations :func:`tutorial.sequence.block.block` records (causal)."""
    ops = layer_norm_ops(p + "norm1.", x, p + "ln1")
    for n in "qkv":                                     # split_heads: reshape, transpose
        ops += [Op(p + n + "0", "token", (p + "ln1",), (p + "ln1",)),
                Op(p + n + "0v", "token", (p + n + "0",), view=True),
                Op(p + n, "token", (p + n + "0v",), also=(p + n + "0",))]
    s = p + "scores."
    ops += [Op(s + "qk", "scores", (p + "q", p + "k"), (p + "q", p + "k")),   # gemm2
            # the mask, broadcast, and the MASKED fill: constants, not recorded
            Op(s + "mask", "pair"), Op(s + "keep", "scores", also=(s + "mask",)),
            Op(s + "full", "scores"),
            Op(s + "masked", "scores", (s + "qk",), (s + "keep",), (s + "keep", s + "full"),
               scratch="scores"),
            # max keeps its input and output, but stop_gradient makes its gradient zero
            Op(s + "max", "head_row", (s + "masked",), (s + "masked", s + "max"),
               backward=False),
            Op(s + "max_stopped", "head_row", (s + "max",), backward=False),
            Op(s + "shifted", "scores", (s + "masked", s + "max_stopped")),
            Op(s + "exp", "scores", (s + "shifted",), (s + "exp",)),
            Op(s + "sum", "head_row", (s + "exp",)),
            Op(s + "weights", "scores", (s + "exp", s + "sum"), (s + "exp", s + "sum")),
            Op(p + "heads", "token", (s + "weights", p + "v"), (s + "weights", p + "v")),
            Op(p + "joined_t", "token", (p + "heads",)),
            Op(p + "joined", "token", (p + "joined_t",), view=True),
            Op(p + "attended", "token", (p + "joined",), (p + "joined_t",)),  # via the view
            Op(p + "h", "token", (x, p + "attended"))]
    ops += layer_norm_ops(p + "norm2.", p + "h", p + "ln2")
    return ops + [Op(p + "up", "hidden", (p + "ln2",), (p + "ln2",)),
                  Op(p + "up_b", "hidden", (p + "up",)),
                  Op(p + "relu", "hidden", (p + "up_b",), (p + "relu",)),
                  Op(p + "down", "token", (p + "relu",), (p + "relu",)),
                  Op(p + "down_b", "token", (p + "down",)),
                  Op(y, "token", (p + "h", p + "down_b")), Op("", also=(x,))]


def tape(model):
    """Every operation of one training step's forward: the embeddings, the blocks, the
    final norm and output layer, and the loss (mean cross-entropy at every position)."""
    ops = [Op("embedded"), Op("positions", "slice"), Op("x0", "token", ("embedded", "positions"))]
    for i in range(model.blocks):
        ops += block_ops(f"block{i}.", f"x{i}", f"x{i + 1}")
    ops += layer_norm_ops("final.", f"x{model.blocks}", "lnf")
    return ops + [Op("logits_mm", "logit", ("lnf",), ("lnf",)),
                  Op("logits", "logit", ("logits_mm",)),
                  Op("log_p", "logit", ("logits",), ("log_p",)),
                  Op("picked", "row", ("log_p",)), Op("mean", "one", ("picked",)),
                  Op("loss", "one", ("mean",))]


def _forward(ops, size, alive, now):
    """Each operation makes its output; an input goes after its last use unless kept."""
    kept = {k for op in ops for k in op.keeps}
    last = {a: i for i, op in enumerate(ops) for a in op.reads + op.also}
    for i, op in enumerate(ops):
        if op.out:
            alive[op.out] = 0 if op.view else size[op.kind]
            now(f"forward: {op.out}")
        for a in op.reads + op.also:
            if last[a] == i and a not in kept:
                alive.pop(a, None)


def _backward(ops, size, alive, now):
    """In reverse: sum a gradient's contributions, make one gradient per input read,
    then let go of the gradient used and of the arrays kept for this operation alone."""
    producer = {op.out: op for op in ops if op.out}
    users = {}                                  # kept array -> backward users still to run
    for op in ops:
        for k in op.keeps if op.backward else ():
            users[k] = users.get(k, 0) + 1
    pending, alive["grad loss"] = {"loss": ["grad loss"]}, 1
    for op in reversed(ops):
        parts = pending.pop(op.out, []) if op.out else []
        if not parts or not op.backward:
            continue
        grad = parts[0]
        if len(parts) > 1:                      # ElementWiseSum of the contributions
            grad = f"grad {op.out}"
            alive[grad] = size[op.kind]
            now(f"backward: sum of the gradients of {op.out}")
            for name in parts:
                alive.pop(name)
        made = {a: f"grad {a} from {op.out}" for a in op.reads}
        alive.update({name: size[producer[a].kind] for a, name in made.items()})
        alive["scratch"] = size[op.scratch] if op.scratch else 0
        now(f"backward: {op.out}")
        for name in ("scratch", grad):
            alive.pop(name)
        for k in op.keeps:
            users[k] -= 1
            if users[k] == 0:
                alive.pop(k, None)
        for a, name in made.items():
            if producer[a].backward:
                pending.setdefault(a, []).append(name)
            else:                               # nobody will read it: freed at once
                alive.pop(name)


def walk(model):
    """[(moment, floats alive)] through one step: the forward, then the backward; what
    is kept but never read by a backward (the masked scores) goes when it ends."""
    check_model(model)
    size, ops, alive, moments = sizes(model), tape(model), {}, []

    def now(moment):
        moments.append((moment, sum(alive.values())))

    _forward(ops, size, alive, now)
    _backward(ops, size, alive, now)
    alive.clear()
    now("backward: done")
    return moments
