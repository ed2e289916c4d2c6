"""Run a :class:`~tutorial.parallel.collectives.schedule.Schedule` on real NDArrays.

A schedule is bound once to its input and output arrays (:class:`BoundSchedule`): every
slice it reads or writes and one receive buffer per transfer, on the receiver's context,
are made then, so each call only copies and adds, as MXNet's kvstore keeps its buffers
from one ``pushpull`` to the next. A transfer copies a slice from the sender's context
into the receiver's buffer (``copyto``, a real copy between devices) and the receiver
adds it to its own slice (all it receives in a step in one pass, ``add_n``), or
overwrites its slice with it. All payloads of a step are
taken before any receiver writes, which gives the schedule's "everyone sends at once"
meaning; MXNet's engine orders the reads before the writes.

**Peer reads.** CPU contexts share one memory, so there a receiver can read the sender's
slice directly, as NCCL's peer-to-peer transport lets one GPU's kernel read another's
buffer: the add takes the sender's slice as an input, with no receive buffer and one
MXNet call instead of two. That is only right when no transfer of the step overwrites a
slice another one reads (then the payload must be copied first, as above); between GPUs
the copy is always made. ``peer_reads=False`` forces the copies (the tests run both).

Inputs are never modified (unless they are the outputs: an in-place allreduce), and they
are not copied either: a slice is read from the input until the schedule first writes
it, and that first write (input + payload, or the payload) goes to the output.
"""

import mxnet as mx


def _writes_are_safe(step):
    """True when no transfer of ``step`` reads a (node, chunk) that another one writes."""
    written = {(t.destination, t.chunk) for t in step.transfers}
    return not any((t.source, t.chunk) in written for t in step.transfers)


class BoundSchedule:
    """``schedule`` bound to ``arrays`` and ``out`` (one NDArray per node, on its context).

    ``bound()`` writes the allreduce of ``arrays`` into ``out`` and returns ``out``;
    ``out`` may be ``arrays`` itself. Build it once per parameter, call it every step.
    ``peer_reads``: receivers read senders' slices directly where that is safe (None:
    when every array is on a CPU context, see :func:`shared_memory`).
    """

    def __init__(self, schedule, arrays, out, peer_reads=None):
        self.schedule, self.arrays, self.out = schedule, list(arrays), list(out)
        if peer_reads is None:
            peer_reads = shared_memory(self.out)
        self.peer_reads = peer_reads
        length = schedule.length
        ins = [a.reshape((length,)) for a in self.arrays]          # views, no copies
        outs = [o.reshape((length,)) for o in self.out]
        written = set()                    # (node, chunk) whose value now lives in out

        def piece(flats, node, t):
            whole = (t.start, t.stop) == (0, length)
            return flats[node] if whole else flats[node][t.start:t.stop]

        def current(node, t):              # where (node, chunk) holds its value now
            return piece(outs if (node, t.chunk) in written else ins, node, t)

        self._steps = []                   # per step: (payload copies, writes)
        for step in schedule.steps:
            direct = _writes_are_safe(step)    # then a payload needs no copy taken first
            sends, writes = [], {}             # writes: (node, chunk) -> (op, target, inputs)
            for t in step.transfers:
                key = (t.destination, t.chunk)
                payload = current(t.source, t)                 # what it held before the step
                if not (direct and (t.op == "copy" or peer_reads)):   # take a copy first
                    inbox = mx.nd.empty((t.stop - t.start,), ctx=outs[t.destination].context,
                                        dtype=outs[t.destination].dtype)
                    sends.append((payload, inbox))
                    payload = inbox
                if t.op == "add":              # everything a receiver gets, summed in one pass
                    _, target, inputs = writes.get(
                        key, ("add", piece(outs, t.destination, t), [current(t.destination, t)]))
                    writes[key] = ("add", target, inputs + [payload])
                else:
                    writes[key] = ("copy", piece(outs, t.destination, t), [payload])
            written.update(writes)
            self._steps.append((sends, list(writes.values())))
        chunks = range(len(schedule.chunks))          # never written: copy input to out
        self._untouched = [(ins[n], outs[n]) for n in range(len(outs))
                           if self.arrays[n] is not self.out[n]
                           and any((n, c) not in written for c in chunks)]
        self._operations = len(self._untouched) + sum(
            len(sends) + len(writes) for sends, writes in self._steps)

    def __call__(self):
        with mx.engine.bulk(self._operations):         # one engine push per context
            for source, target in self._untouched:
                source.copyto(target)
            for sends, writes in self._steps:
                for source, inbox in sends:            # payloads first: what senders held
                    source.copyto(inbox)
                for op, target, inputs in writes:
                    if op == "copy":
                        inputs[0].copyto(target)
                    elif len(inputs) == 2:
                        mx.nd.elemwise_add(*inputs, out=target)
                    else:
                        mx.nd.add_n(*inputs, out=target)
        return self.out


def shared_memory(arrays):
    """True when every array is on a CPU context: the "devices" share one memory."""
    return all(a.context.device_type == "cpu" for a in arrays)


def run_schedule(arrays, schedule):
    """Carry out ``schedule`` on ``arrays`` (one per node) and return new arrays (inputs kept)."""
    out = [mx.nd.empty(a.shape, ctx=a.context, dtype=a.dtype) for a in arrays]
    return BoundSchedule(schedule, arrays, out)()


def as_ndarray_list(arrays):
    """Check that ``arrays`` is a non-empty list of NDArrays; return it as a list."""
    if isinstance(arrays, mx.nd.NDArray) or not isinstance(arrays, (list, tuple)):
        raise TypeError("allreduce needs a list of NDArrays, one per device, e.g. "
                        "[g.as_in_context(ctx) for ctx in devices]; got "
                        f"{type(arrays).__name__}")
    if not arrays:
        raise ValueError("allreduce got an empty list: give it one NDArray per device")
    for i, a in enumerate(arrays):
        if not isinstance(a, mx.nd.NDArray):
            raise TypeError(f"arrays[{i}] is a {type(a).__name__}, not an NDArray: convert "
                            f"it with mx.nd.array(x, ctx=device)")
        if a.stype != "default":
            raise TypeError(f"arrays[{i}] is a {a.stype} NDArray; allreduce sums dense "
                            f"arrays: call .tostype('default') first")
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError(f"all arrays must have one shape, got {[a.shape for a in arrays]}: "
                         "allreduce sums the same parameter's gradient from every device")
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) > 1:
        raise ValueError(f"all arrays must have one dtype, got "
                         f"{[a.dtype.__name__ for a in arrays]}: cast them with .astype()")
    if arrays[0].size == 0:
        raise ValueError(f"the arrays are empty (shape {arrays[0].shape}): nothing to sum")
    return list(arrays)
