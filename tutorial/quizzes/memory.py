"""Quiz: what each device holds, and the ways to shrink it (ZeRO, tensor parallelism,
recomputation). Its numbers are what ``tutorial.memory`` computes
(``tests/quizzes/test_memory_quiz.py``).
"""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Memory: sharded optimizer, tensor parallelism, recomputation", [
    Question(
        "A model of 1 million float32 parameters is trained with Adam on 4 devices. Per "
        "device, which counts are right?", [
            right("plain data parallelism: 16 MB (4 MB weights, 4 MB gradients, 8 MB Adam state)",
                  "Every device holds everything: 4 bytes per number, Adam keeps two arrays "
                  "(m and v) the size of the weights."),
            right("ZeRO-1: 10 MB (the 8 MB of Adam state becomes 2 MB)",
                  "Stage 1 splits only the optimizer state over the 4 devices."),
            wrong("ZeRO-1: 4 MB, a quarter of 16 MB",
                  "That is stage 3, where weights, gradients and state are all split."),
            wrong("ZeRO-2: 10 MB",
                  "Stage 2 splits the gradients too: 4 + 1 + 2 = 7 MB."),
        ]),
    Question(
        "Compared with plain data parallelism (a ring allreduce of the gradients), what does "
        "each device send per step?", [
            right("ZeRO-1: the same bytes",
                  "A ring allreduce is a reduce-scatter then an all-gather; ZeRO-1 "
                  "reduce-scatters the gradients and all-gathers the updated weights."),
            right("ZeRO-3: about one and a half times as much",
                  "The weights are all-gathered twice (forward and backward) besides the "
                  "gradients' reduce-scatter: 3(K-1)/K instead of 2(K-1)/K."),
            wrong("ZeRO-2: half as much, since it keeps only half of the gradients",
                  "It keeps a shard, but every gradient is still reduce-scattered and every "
                  "weight all-gathered: the same bytes as the allreduce."),
            wrong("ZeRO-3: K times less, since each device holds 1/K of the weights",
                  "Holding less does not mean sending less: each layer's weights must be "
                  "gathered whole before it is used."),
        ]),
    Question(
        "A two-layer MLP is split Megatron-style over K devices: the first weight by its "
        "columns (hidden units), the second by its rows. Which statements hold?", [
            right("the ReLU needs no communication",
                  "Each device holds whole hidden units, and a ReLU acts on each unit alone."),
            right("the forward needs one allreduce, of the batch's outputs",
                  "Each device's second layer gives a partial sum of the output; summing them "
                  "is the allreduce."),
            wrong("every device trains on 1/K of the batch",
                  "Each device sees the whole batch; it is the weights that are split."),
            wrong("for a convolutional stack it sends less than data parallelism",
                  "Convolutions have few weights and large outputs; allreducing outputs costs "
                  "more than allreducing the weights' gradients there."),
        ]),
    Question(
        "A 16-layer MLP of equal widths keeps only segment boundaries in the forward and "
        "recomputes the rest in the backward. Which is true?", [
            right("4 segments of 4 layers hold about half the activations of no recomputation",
                  "4 boundaries + 3 activations recomputed inside one segment = 7 layer "
                  "outputs instead of 16."),
            right("the gradients are those of plain backpropagation",
                  "The recomputed forward gives the same activations, so the same gradients: "
                  "the notebook checks them against autograd."),
            wrong("16 segments of one layer hold the least",
                  "One segment per layer keeps every boundary: that is no recomputation at all."),
            wrong("it makes a step faster",
                  "It adds work: the backward runs the forwards inside each segment again. The "
                  "notebook counts them: with k segments of n layers, n - k more layer "
                  "forwards per step."),
        ]),
])
