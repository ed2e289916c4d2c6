"""Long sequences: attention, the online softmax, and ring attention over K devices.

One idea per file:

- ``attention``       scaled dot-product and multi-head attention from scratch on NDArrays
                      (causal or not), and a float64 NumPy reference
- ``block``           one pre-norm transformer block (LayerNorm, attention, MLP, residuals)
                      on NDArrays, its weights as data, and a float64 NumPy reference
- ``online_softmax``  attention over keys seen one block at a time: a partial result
                      (running maximum, sum, unnormalised output), merged exactly
- ``placement``       which positions each device holds (plain slices or zig-zag) and the
                      causal mask's work on each
- ``ring_schedule``   ring attention's steps as data: the block each device holds, its mask
                      (unmasked, partly, fully), the tiles it computes and the bytes it sends
- ``ring_attention``  the schedule run on NDArrays on K contexts, differentiable through
                      autograd; cutting a sequence into per-device pieces and joining them
- ``ring_timing``     the seconds each device computes at each step, measured, beside the
                      pairs the schedule counts: the causal imbalance and zig-zag's cure
"""
