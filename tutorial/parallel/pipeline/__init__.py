"""Model parallelism and pipelining: a network cut into stages, one per device.

One idea per file:

- ``schedules``            the data: who runs which micro-batch's forward or backward on
                           which stage at each tick (naive, GPipe, 1F1B), their bubble and
                           the activations each stage holds
- ``stages``               a Sequential cut into stages on devices; activations copied
                           forward, gradients back
- ``executor``             runs a schedule for real on the stages, timing every task
- ``measure``              time, bubble and activation memory against m, on this machine
- ``timing``               schedules on a clock: replay measured durations on p devices,
                           speed-up formulas (MSRA's 3.3x on 4 GPUs)
- ``async_pipeline``       breaking update locking: each stage updates as its gradient
                           arrives, against the synchronous pipeline and plain SGD
- ``synthetic_gradients``  a stage that updates from a learned gradient predictor
- ``data_or_model``        bytes and seconds of data against model parallelism
"""
