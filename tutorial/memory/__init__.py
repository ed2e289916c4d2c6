"""Memory: what each device must hold to train, and the ways to shrink it (notebook 13).

One idea per file:

- ``ledger``            the arrays a step keeps alive, per device and kind, and their peak
                        (bookkeeping: the library tells it what it keeps)
- ``footprint``         bytes per device (weights, gradients, optimizer state, activations)
                        and bytes sent per step, counted for any Gluon net and ZeRO stage
- ``step_memory``       what a ZeRO device holds at once, between steps and at a step's
                        worst moment, counted moment by moment
- ``model_states``      the ZeRO paper's per-device count of mixed-precision model states
- ``resident``          the kernel's resident-memory counters (now, and the peak since a reset)
- ``measured_memory``   ZeRO's and recomputation's memory measured in a fresh process,
                        beside the count
- ``sharding``          the ring's reduce-scatter and all-gather on their own, and which
                        device owns which slice (the chunk the ring leaves complete on it)
- ``layers``            an MLP as plain per-layer functions, so executors decide what to keep
- ``diverged``          the memory trainers' stop at a NaN or infinity: the step and its cause
- ``zero``              ZeRO stages 0-3 (data parallel, state, gradients, weights sharded)
- ``tensor_parallel``   a Megatron MLP: first weight split by columns, second by rows
- ``tensor_or_data``    the batch at which tensor parallelism's bytes per step pass data
                        parallelism's (they grow with the batch, gradients do not)
- ``recompute``         keep activations only at segment boundaries, recompute the rest
- ``precision``         what float16 and bfloat16 keep of float32 numbers; gradient underflow
- ``loss_scaling``      a dynamic loss scaler from scratch (grow after N good steps, halve and skip)
- ``mixed_precision``   data-parallel training with float16 storage and float32 master weights
- ``amp_probe``         what ``mxnet.contrib.amp`` does on this machine, in a fresh process
- ``buckets``           gradients grouped into buckets in backward order; a step's timeline as events
- ``overlap``           each bucket allreduced on a second thread while the backward goes on
- ``engine_timeline``   MXNet's own overlap: its threaded engine against NaiveEngine, profiled
                        in a fresh process per engine (a Chrome trace to open)
- ``profiler_trace``    MXNet's profiler trace read back: operators per thread, by kind, and
                        how much communication ran inside the backward
- ``roofline``          FLOPs, bytes and arithmetic intensity of the course's operations
- ``roofline_measure``  this machine's peak FLOP/s and bandwidth, and the operations on its roof
"""
