"""Quiz: long sequences and many experts: attention's memory, tensor and sequence
parallelism, the online softmax and ring attention, the causal mask's imbalance, mixture
of experts, the all-to-all and choosing a layout. Its numbers are what
``tutorial.sequence`` and ``tutorial.experts`` compute (``tests/quizzes/test_sequences_quiz.py``).
The right options sit in other places from one question to the next.
"""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Long sequences and many experts: tensor, sequence, context and expert "
            "parallelism", [
    Question(
        "Self-attention with 8 heads over s = 4096 positions, batch 1, float32. What does "
        "one array of its scores (q kᵀ / √d for every head) hold?", [
            wrong("8 × 4096 × 64 numbers, 8 MiB, with head_dim 64",
                  "That is the size of q (or k, or v): s × head_dim per head. The scores "
                  "compare every position with every other: s × s per head."),
            wrong("twice as much when the sequence is twice as long",
                  "Both sides of s × s double: four times as much."),
            right("8 × 4096² numbers: 512 MiB",
                  "134 million float32 numbers per array; the softmax keeps more arrays of "
                  "the same size for the backward, in every layer."),
            right("four times as much when the sequence is twice as long",
                  "The s² term: in the course's block it outgrows the per-token activations "
                  "once s passes about 3.5 × head_dim (224 positions in section 2)."),
        ]),
    Question(
        "A transformer block is split Megatron-style over K devices: attention by heads, "
        "the MLP by hidden units. Which hold?", [
            right("each device attends with its own heads without any communication",
                  "A head's q, k and v come from its own columns of W_q, W_k, W_v, and "
                  "attention runs head by head; only the output projection's partial sums "
                  "are added, by the allreduce."),
            wrong("keys and values must be all-gathered from the other devices",
                  "Every device holds the whole sequence; the heads are what is split. "
                  "Gathering keys and values belongs to context parallelism."),
            right("two allreduces of (batch, s, model_dim) forward, two backward, per block",
                  "One after attention and one after the MLP (g); backward, one for each "
                  "input gradient (f)."),
            wrong("each device keeps 1/K of the LayerNorms' activations",
                  "Under tensor parallelism the LayerNorms run on the whole sequence on "
                  "every device: their activations are replicated. Sequence parallelism "
                  "cuts them."),
        ]),
    Question(
        "Sequence parallelism (Korthikanti et al. 2022) cuts the LayerNorm and residual "
        "regions of a tensor-parallel block along the sequence. Compared with tensor "
        "parallelism alone, per device and per step:", [
            wrong("it sends half the bytes",
                  "It replaces each allreduce by a reduce-scatter and an all-gather, and a "
                  "ring allreduce is exactly those two: the same bytes (the notebook's "
                  "count and its runs agree)."),
            wrong("each device's attention scores shrink K-fold",
                  "The scores are split by heads, under both; sequence parallelism only "
                  "cuts the regions between the split parts."),
            right("the same bytes for the activations' collectives, and fewer activations kept",
                  "The LayerNorms' arrays fall to 1/K per device, measured in the "
                  "notebook; the bytes are those of the allreduces it replaces."),
            right("the replicated weights' gradients need one more small allreduce",
                  "A LayerNorm's gain and bias see only a device's positions, so their "
                  "gradients are partial: 5 × model_dim numbers summed once."),
        ]),
    Question(
        "Two partial softmax results for one query: a = (m 2, l 3, o 6) and b = (m 5, "
        "l 1, o 4), each l and o summed relative to its own m. Merged, with m the largest "
        "score seen, as the online softmax keeps it:", [
            right("m = 5, l = 3e⁻³ + 1 ≈ 1.149",
                  "Bring a down to the larger maximum: multiply its l and o by e^(2 − 5)."),
            wrong("m = 5, l = 3 + 1 = 4",
                  "a's sum is relative to e²; adding it to b's, relative to e⁵, mixes two "
                  "scales."),
            wrong("m = 2, l = 3 + e³",
                  "m must be the largest score, 5. Kept at 2, b's factor becomes e^(5 − 2) "
                  "> 1, and with scores in the thousands such a factor overflows."),
            right("output = (6e⁻³ + 4) / (3e⁻³ + 1) ≈ 3.74",
                  "o and l are rescaled by the same factor; the output is o / l."),
        ]),
    Question(
        "Ring attention on K devices, each holding s/K positions' queries, keys and "
        "values. Which hold?", [
            wrong("every device receives the whole sequence's keys and values K times",
                  "Each block passes each device once: K − 1 messages of s/K positions."),
            right("in the forward, each device sends (K − 1)/K of the sequence's keys and values",
                  "The bytes of an all-gather of them, sent block by block around the ring; "
                  "in the backward their gradients travel the ring again."),
            right("the result equals attention on one device, up to float32 rounding",
                  "The online softmax merges the partial results exactly; the notebook "
                  "checks outputs and gradients, causal or not."),
            wrong("it computes an approximation, since no device sees all scores at once",
                  "Nothing is approximated: m, l and o carry everything the softmax needs."),
        ]),
    Question(
        "Causal ring attention, s positions on 4 devices, placed as plain slices. Which "
        "hold?", [
            right("device 3 computes a block at every step, device 0 at one",
                  "Device 0's queries come first: every key block but its own lies in its "
                  "future. Busiest over mean: 4 / 2.5 = 1.6 blocks."),
            wrong("every device computes half its blocks, so the load is balanced",
                  "The mask removes the most from device 0 and nothing from device 3's "
                  "earlier blocks."),
            right("zig-zag (chunks d and 2K − 1 − d) gives every device the same work",
                  "An early and a late chunk each; counted (2K + 1) tiles per device, and "
                  "the measured times even out."),
            wrong("zig-zag sends fewer bytes",
                  "Each device still passes a block on at each of K − 1 steps; zig-zag "
                  "changes who computes what, not what travels."),
        ]),
    Question(
        "A mixture-of-experts layer routes T = 12 tokens to E = 4 experts with k = 1 and "
        "capacity factor 1.0. Five tokens choose expert 2. Which hold?", [
            wrong("expert 2 takes all five; the others wait",
                  "Each expert takes at most its capacity, ⌈1.0 · 12 · 1 / 4⌉ = 3."),
            right("two of them are dropped",
                  "Capacity 3: the first three in token order are kept."),
            right("a dropped token passes on through the residual connection",
                  "The layer adds nothing for it; the block's x + MoE(x) carries x on."),
            wrong("a capacity factor of 4 would drop nothing and cost nothing",
                  "It drops nothing here, but with fixed shapes every expert is sized for "
                  "12 slots: padding computed and sent whatever the tokens do."),
        ]),
    Question(
        "Expert parallelism sends tokens to their experts' devices with an all-to-all "
        "(the pairwise exchange). On K devices:", [
            right("K − 1 steps; at step s device i sends to device i + s (mod K)",
                  "Each device sends one message and receives one per step."),
            wrong("every device sends the same bytes",
                  "Each sends the rows routed to other devices: uneven when the router "
                  "is."),
            right("the backward pass is the reverse all-to-all",
                  "Gradients go back the way the rows came: the counts transposed."),
            wrong("it is an allreduce of the tokens",
                  "Nothing is summed: each block goes to one device and stays distinct."),
        ]),
    Question(
        "Switch Transformer's load-balancing loss α E Σ_e f_e P_e (f: share of tokens "
        "routed to e, P: mean router probability of e). Which hold?", [
            wrong("it is 0 when the routing is balanced",
                  "Uniform f (or P) gives α E Σ (1/E) P_e = α: its smallest value in "
                  "practice, not 0."),
            wrong("its gradient flows through f",
                  "f counts choices, a step function; only P is differentiable."),
            right("it is about α E when every token goes to one expert",
                  "f and P both pile up on that expert: α E · 1 · 1."),
            right("it pushes the router's probabilities away from busy experts",
                  "Its gradient with respect to P_e is α E f_e: largest for the experts "
                  "that got the most tokens."),
        ]),
    Question(
        "Section 7 counts a GPT-2-small-like model (seq 1024, batch 32) on 8 devices with "
        "8 GB each. Which hold?", [
            wrong("ZeRO-3 makes D8 fit: it cuts the model states from 2.61 to 0.38 GB",
                  "The activations, 11.78 GB per device, are what fill it; ZeRO does not "
                  "touch them."),
            right("only the layouts with a pipeline fit",
                  "1F1B runs the step as micro-batches and holds at most p of them at once; "
                  "gradient accumulation or recomputation would shrink the others too."),
            wrong("D2 x T4 sends less than D8, since each device holds a quarter of the "
                  "weights",
                  "It sends activations in every block, forward and backward: 3,789 MB per "
                  "device per step against D8's 1,141 MB."),
            right("MFU is the FLOPs a step must do, over its seconds, over the peak",
                  "Model FLOPs (6 per weight per token, plus attention's s² terms) divided "
                  "by the time and the devices' peak FLOP/s; the notebook's peak is a "
                  "measured matrix product, not a rated one."),
        ]),
])
