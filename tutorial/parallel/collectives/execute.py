"""Run a :class:`~tutorial.parallel.collectives.schedule.Schedule` on real NDArrays.

Each node works on a flat copy of its own array on its own context, so the inputs are
never modified. A transfer copies a slice from the sender's context to the receiver's
(``copyto``, a real copy between devices) and the receiver adds or overwrites. All
payloads of a step are taken before any receiver writes, which gives the schedule's
"everyone sends at once" meaning; MXNet's engine orders the reads before the writes.
"""

import mxnet as mx


def _writes_are_safe(step):
    """True when no transfer of ``step`` reads a (node, chunk) that another one writes."""
    written = {(t.destination, t.chunk) for t in step.transfers}
    return not any((t.source, t.chunk) in written for t in step.transfers)


def run_schedule(arrays, schedule):
    """Carry out ``schedule`` on ``arrays`` (one per node) and return the new arrays."""
    length = schedule.length
    flats = [a.reshape((length,)).copy() for a in arrays]   # (length,) on each context
    views = {}

    def view(node, t):                                     # slice of one node's copy
        key = (node, t.chunk)
        if key not in views:
            whole = (t.start, t.stop) == (0, length)
            views[key] = flats[node] if whole else flats[node][t.start:t.stop]
        return views[key]

    for step in schedule.steps:
        direct = _writes_are_safe(step)
        # payloads first: every sender sends what it held before this step
        payloads = [None if (t.op == "copy" and direct) else
                    view(t.source, t).copyto(flats[t.destination].context)
                    for t in step.transfers]
        for t, payload in zip(step.transfers, payloads):
            target = view(t.destination, t)
            if t.op == "add":
                mx.nd.elemwise_add(target, payload, out=target)
            else:
                (view(t.source, t) if payload is None else payload).copyto(target)
    return [f.reshape(a.shape) for f, a in zip(flats, arrays)]


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
