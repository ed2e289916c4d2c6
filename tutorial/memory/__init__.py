"""Memory: what each device must hold to train, and the ways to shrink it (notebook 13).

One idea per file:

- ``ledger``            the arrays a step keeps alive, per device and kind, and their peak
                        (the memory we can measure on CPU contexts)
- ``footprint``         bytes per device (weights, gradients, optimizer state, activations)
                        and bytes sent per step, counted for any Gluon net and ZeRO stage
- ``sharding``          the ring's reduce-scatter and all-gather on their own, and which
                        device owns which slice (the chunk the ring leaves complete on it)
- ``layers``            an MLP as plain per-layer functions, so executors decide what to keep
- ``diverged``          the memory trainers' stop at a NaN or infinity: the step and its cause
- ``zero``              ZeRO stages 0-3 (data parallel, state, gradients, weights sharded)
- ``tensor_parallel``   a Megatron MLP: first weight split by columns, second by rows
- ``recompute``         keep activations only at segment boundaries, recompute the rest
- ``precision``         what float16 and bfloat16 keep of float32 numbers; gradient underflow
- ``loss_scaling``      a dynamic loss scaler from scratch (grow after N good steps, halve and skip)
- ``mixed_precision``   data-parallel training with float16 storage and float32 master weights
- ``amp_probe``         what ``mxnet.contrib.amp`` does on this machine, in a fresh process
- ``buckets``           gradients grouped into buckets in backward order; a step's timeline as events
- ``overlap``           each bucket allreduced on a second thread while the backward goes on
- ``roofline``          FLOPs, bytes and arithmetic intensity of the course's operations
- ``roofline_measure``  this machine's peak FLOP/s and bandwidth, and the operations on its roof
"""
