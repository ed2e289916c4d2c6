"""Memory: what each device must hold to train, and the ways to shrink it.

One idea per file:

- ``ledger``           the arrays a step keeps alive, per device and kind, and their peak
                       (the memory we can measure on CPU contexts)
- ``footprint``        bytes per device (weights, gradients, optimizer state, activations)
                       and bytes sent per step, counted for any Gluon net and ZeRO stage
- ``sharding``         the ring's reduce-scatter and all-gather on their own, and which
                       device owns which slice (the chunk the ring leaves complete on it)
- ``layers``           an MLP as plain per-layer functions, so executors decide what to keep
- ``zero``             ZeRO stages 0-3 (data parallel, state, gradients, weights sharded)
- ``tensor_parallel``  a Megatron MLP: first weight split by columns, second by rows
- ``recompute``        keep activations only at segment boundaries, recompute the rest
"""
