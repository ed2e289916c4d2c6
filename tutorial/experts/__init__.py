"""Mixture of experts and expert parallelism: routing as data, the all-to-all from messages.

One idea per file:

- ``all_to_all``       the all-to-all as data: the pairwise-exchange schedule of messages
                       (uneven, empty blocks), bytes sent, a NumPy replay and reference
- ``exchange``         that schedule run on NDArrays on K contexts, differentiable
- ``capacity``         expert capacity, the slots taken in priority order, and what a
                       capacity factor drops
- ``gating``           top-k softmax gating: router probabilities, the Routing as data,
                       gate weights and the load-balancing loss
- ``moe``              the mixture-of-experts layer on one device, its weights as data, and
                       a float64 NumPy reference
- ``dispatch``         expert parallelism's plan: experts placed on devices, which rows
                       each device sends where and where they come back
- ``expert_parallel``  the layer over K contexts: all-to-all, experts, reverse all-to-all,
                       combine
- ``equivalence``      expert parallel against the one-device layer: outputs, gradients,
                       the same drops
"""
