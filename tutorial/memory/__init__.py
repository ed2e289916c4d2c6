"""Memory and precision at scale (notebook 13).

- ``precision``         what float16 and bfloat16 keep of float32 numbers; gradient underflow
- ``loss_scaling``      a dynamic loss scaler from scratch (grow after N good steps, halve and skip)
- ``mixed_precision``   data-parallel training with float16 storage and float32 master weights
- ``amp_probe``         what ``mxnet.contrib.amp`` does on this machine, in a fresh process
- ``buckets``           gradients grouped into buckets in backward order; a step's timeline as events
- ``overlap``           each bucket allreduced on a second thread while the backward goes on
- ``roofline``          FLOPs, bytes and arithmetic intensity of the course's operations
- ``roofline_measure``  this machine's peak FLOP/s and bandwidth, and the operations on its roof
"""
