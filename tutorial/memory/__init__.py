"""Memory and precision at scale (notebook 13).

- ``precision``        what float16 and bfloat16 keep of float32 numbers; gradient underflow
- ``loss_scaling``     a dynamic loss scaler from scratch (grow after N good steps, halve and skip)
- ``mixed_precision``  data-parallel training with float16 storage and float32 master weights
- ``amp_probe``        what ``mxnet.contrib.amp`` does on this machine, in a subprocess
- ``overlap``          gradients sent in buckets while the rest of the backward runs; its timeline
- ``roofline``         arithmetic intensity of the course's operations, and this machine's roofline
"""
