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
- ``sequence_collectives``    the ring's allreduce, reduce-scatter and all-gather cut at
                      whole positions, and Megatron's f, g and ḡ as autograd Functions
- ``tensor_parallel_block``    the block split over K devices by heads and hidden units
                      (Megatron): the sharding as data, one allreduce after attention and MLP
- ``sequence_parallel_block``  the same with the LayerNorms and residuals cut along the
                      sequence: all-gather before, reduce-scatter after (Korthikanti et al.)
- ``parallel_block_costs``     bytes each device sends per block (tensor = tensor + sequence
                      parallel, from the schedules) and activations it keeps (a count)
- ``parallel_block_memory``    those activations measured: resident memory in a fresh process
- ``transformer``     a small decoder-only transformer as a Gluon Block (embeddings, causal
                      blocks of ``block``, final norm, output layer) and a float64 reference
- ``tasks``           copying a sequence after a separator, generated from a seed: a task
                      only attention solves; its batches and an Adam training loop
- ``step_tape``       one training step as data: the operations autograd records, what each
                      keeps for the backward, and the step replayed moment by moment
- ``length_memory``   what autograd keeps per block by kind (the s² scores, the s·d
                      activations, the weights) as seq grows, counted and measured
- ``layout``          a transformer's shape and a layout over devices (data, tensor +
                      sequence, context, pipeline, expert, ZeRO) as data; what each holds
- ``layout_costs``    each device's memory (states, activations) and bytes sent per step
                      by kind, read from the course's schedules and counts
- ``layout_table``    a default list of layouts for N devices, their costs as rows, which fit
- ``model_flops``     a training step's model FLOPs (6N per token + attention) and MFU
- ``equivalence``     ring attention and the tensor/sequence-parallel block against one
                      device: outputs and gradients, relative differences, bytes sent
"""
