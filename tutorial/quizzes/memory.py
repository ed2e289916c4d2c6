"""Quiz: what each device holds, and the ways to shrink it (ZeRO, tensor parallelism,
recomputation, mixed precision), then overlap and the roofline. Its numbers are what
``tutorial.memory`` and ``tutorial.parallel.pipeline.data_or_model`` compute
(``tests/quizzes/test_memory_quiz.py``). The right options sit in other places from one
question to the next.
"""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Memory: ZeRO, tensor parallelism, recomputation, mixed precision, overlap, "
            "roofline", [
    Question(
        "A model of 1 million float32 parameters is trained with Adam on 4 devices. Per "
        "device, in the steady state (the ZeRO paper's count: no activations, no layer "
        "whole for a moment), which counts are right?", [
            wrong("ZeRO-1: 4 MB, a quarter of 16 MB",
                  "That is stage 3, where weights, gradients and state are all split."),
            right("plain data parallelism: 16 MB (4 MB weights, 4 MB gradients, 8 MB Adam state)",
                  "Every device holds everything: 4 bytes per number, Adam keeps two arrays "
                  "(m and v) the size of the weights."),
            wrong("ZeRO-2: 10 MB",
                  "Stage 2 splits the gradients too: 4 + 1 + 2 = 7 MB."),
            right("ZeRO-1: 10 MB (the 8 MB of Adam state becomes 2 MB)",
                  "Stage 1 splits only the optimizer state over the 4 devices."),
        ]),
    Question(
        "Compared with plain data parallelism (a ring allreduce of the gradients), what does "
        "each device send per step?", [
            right("ZeRO-3: about one and a half times as much",
                  "The weights are all-gathered twice (forward and backward) besides the "
                  "gradients' reduce-scatter: 3(K-1)/K instead of 2(K-1)/K."),
            wrong("ZeRO-2: half as much, since it keeps only half of the gradients",
                  "It keeps a shard, but every gradient is still reduce-scattered and every "
                  "weight all-gathered: the same bytes as the allreduce."),
            right("ZeRO-1: the same bytes",
                  "A ring allreduce is a reduce-scatter then an all-gather; ZeRO-1 "
                  "reduce-scatters the gradients and all-gathers the updated weights."),
            wrong("ZeRO-3: K times less, since each device holds 1/K of the weights",
                  "Holding less does not mean sending less: each layer's weights must be "
                  "gathered whole before it is used."),
        ]),
    Question(
        "A two-layer MLP is split Megatron-style over K devices: the first weight by its "
        "columns (hidden units), the second by its rows. Which statements hold?", [
            wrong("every device trains on 1/K of the batch",
                  "Each device sees the whole batch; it is the weights that are split."),
            right("the ReLU needs no communication",
                  "Each device holds whole hidden units, and a ReLU acts on each unit alone."),
            right("the forward needs one allreduce, of the batch's outputs",
                  "Each device's second layer gives a partial sum of the output; summing them "
                  "is the allreduce."),
            wrong("the hidden activations must be all-gathered before the second layer",
                  "The second weight is split by rows to match: each device multiplies its own "
                  "hidden units by its own rows, so nothing is gathered; the partial outputs "
                  "are summed once, by the allreduce."),
        ]),
    Question(
        "Per step, tensor parallelism allreduces activations (a pair of layers' output "
        "forward, its input's gradient backward) and data parallelism allreduces the "
        "gradients. Which hold?", [
            right("tensor parallelism's bytes grow with the batch; data parallelism's do not",
                  "Each of its allreduces carries the layer's outputs for every sample of the "
                  "batch; data parallelism sends every weight's gradient once, however many "
                  "samples made it."),
            wrong("for dense layers tensor parallelism always sends less, since each device "
                  "holds only 1/K of the weights",
                  "Holding fewer weights does not mean sending fewer bytes: its messages grow "
                  "with the batch, and past the crossover batch (about L/(L - 1) times the width "
                  "for L equal layers: a little above it for deep stacks, twice it for one "
                  "pair) it sends more than data parallelism."),
            wrong("for the notebook's 8 convolutions of 256 channels on 28 x 28 maps, at a "
                  "batch of 256, tensor parallelism sends less",
                  "One sample's output of such a layer is 28 x 28 x 256 = 200,704 numbers, a "
                  "third of the layer's 590,080 weights, so the two cross at about 3 samples; "
                  "at 256 tensor parallelism sends about 76 times what data parallelism "
                  "sends."),
            right("for the notebook's 8 dense layers of width 1024, tensor parallelism sends "
                  "less than data parallelism only below a batch of about 1171",
                  "Data parallelism sends 8 x (1024 x 1024 + 1024) gradients; tensor "
                  "parallelism 7 x 1024 numbers per sample (4 allreduces forward, 3 "
                  "backward), each with the same 2(K-1)/K x 4 bytes: equal at "
                  "8 x 1025 / 7 = 1171.4 samples, whatever K."),
        ]),
    Question(
        "A 16-layer MLP of equal widths keeps only segment boundaries in the forward and "
        "recomputes the rest in the backward. Which is true?", [
            wrong("16 segments of one layer hold the least",
                  "One segment per layer keeps every boundary: that is no recomputation at all."),
            wrong("it makes a step faster",
                  "It adds work: the backward runs the forwards inside each segment again. The "
                  "notebook counts them: with k segments of n layers, n - k more layer "
                  "forwards per step."),
            right("the gradients are those of plain backpropagation",
                  "The recomputed forward gives the same activations, so the same gradients: "
                  "the notebook checks them against autograd."),
            right("4 segments of 4 layers hold about half the activations of no recomputation",
                  "4 boundaries + 3 activations recomputed inside one segment = 7 layer "
                  "outputs instead of 16."),
        ]),
    Question(
        "Float16 gradients with a dynamic loss scale S: which hold?", [
            right("the loss is multiplied by S so that small gradients do not round to zero "
                  "in float16",
                  "Backward is linear, so every gradient is multiplied by S too, lifting those "
                  "below float16's smallest number (about 6e-8) into its range; the update "
                  "divides by S again, in float32, before it changes the float32 master "
                  "weights."),
            wrong("a step whose gradients overflow is applied with them clipped to float16's "
                  "largest number",
                  "An inf or NaN says nothing about the right direction: the step's update is "
                  "skipped, and the scale lowered."),
            right("when a step's gradients hold an inf or a NaN, its update is skipped and S "
                  "is lowered; after N finite steps in a row S is raised again",
                  "That is the dynamic rule (halve and double, in the notebook's scaler, "
                  "MXNet's amp and PyTorch's GradScaler): it keeps S near the largest scale "
                  "that does not overflow."),
            wrong("bfloat16 needs a larger loss scale than float16, since it keeps fewer "
                  "mantissa bits",
                  "Loss scaling answers range, not precision: bfloat16 keeps float32's 8-bit "
                  "exponent, so small gradients do not round to zero, and it is usually "
                  "trained without loss scaling."),
        ]),
    Question(
        "Mixed precision with Adam: float16 weights and gradients on each device, a float32 "
        "master copy of the weights, Adam's m and v in float32. Against float32 training "
        "with Adam, which hold?", [
            wrong("it halves the bytes of model state per parameter, 8 instead of 16",
                  "Only the float16 copies are half size: 2 (weights) + 2 (gradients) + 4 "
                  "(master weights) + 8 (m and v) = 16 bytes per parameter, as float32's "
                  "4 + 4 + 8."),
            right("the weights, gradients and optimizer state take the same 16 bytes per "
                  "parameter",
                  "2 + 2 + 4 + 8 = 16 against 4 + 4 + 8 = 16: the master copy takes back "
                  "what the float16 copies save. ZeRO (section 2) is what shrinks them."),
            right("the allreduce of the gradients sends half the bytes",
                  "The gradients are sent as float16: 2 bytes per number instead of 4 (the "
                  "notebook's ring sent exactly half)."),
            right("the activations kept for the backward take half the bytes, where the "
                  "forward runs in float16",
                  "Each kept output is a 2-byte number; in networks whose activations "
                  "dominate, such as section 1's ResNet, that is most of the memory saved."),
        ]),
    Question(
        "Data-parallel training can send gradients while the backward pass still runs "
        "(section 6). Which hold?", [
            wrong("it changes the weights a step reaches, since some gradients are sent "
                  "before the backward has finished",
                  "Every bucket holds gradients that are already final, and the sums do not "
                  "depend on when they are sent: the notebook's weights with and without "
                  "overlap were equal bit for bit."),
            right("it works because a layer's gradients are final once its backward is done, "
                  "and the backward runs from the last layer to the first",
                  "So the last layers' gradients can travel while earlier layers' backward "
                  "still runs. MXNet's asynchronous engine allows it: backward() only queues "
                  "its operations, and a kvstore push queued after them runs as soon as the "
                  "gradient it reads is written; PyTorch's DDP and Horovod send buckets from "
                  "hooks the backward calls."),
            wrong("packing the gradients into buckets is what makes it possible",
                  "Buckets cut the number of messages, each of which pays a latency; the "
                  "overlap comes from sending a bucket as soon as its gradients are final, "
                  "which works with one message per parameter too."),
            wrong("it hides all the communication whenever the backward takes longer than "
                  "the allreduce",
                  "The first layers' gradients are final only when the backward ends, so "
                  "their bucket is sent after it, and the update waits for every bucket."),
            right("on CPU contexts that share two cores it hides little or nothing",
                  "The timing model assumes communication has hardware of its own. Between "
                  "CPU contexts, communication is memory copies and additions done by the "
                  "same cores as the backward, so a copy that runs inside the backward's "
                  "span is time those cores spend copying, not time hidden. On GPUs the "
                  "copies run on NVLink or PCIe beside the compute."),
        ]),
    Question(
        "On a roofline, an operation of arithmetic intensity I (FLOPs per byte it moves) "
        "runs at most at min(peak FLOP/s, I x memory bandwidth). Which hold?", [
            wrong("a large enough model moves the Adam update right of the ridge",
                  "In the course's count it does 12 FLOPs per weight on 7 float32 numbers "
                  "read or written, I = 3/7, whatever the number of weights: no size moves "
                  "it."),
            right("the ridge, where memory stops being the limit, is at I = peak FLOP/s "
                  "divided by bandwidth",
                  "Left of it I x bandwidth is below the peak, so the bytes bound the time; "
                  "right of it the arithmetic does."),
            wrong("a d x d matrix product's intensity is the same for every d",
                  "It does 2d^3 FLOPs on 3d^2 numbers, 12d^2 bytes in float32: I = d/6, "
                  "which grows with d. That is why large matrix products reach the flat "
                  "part of the roof."),
            right("an optimizer update is memory-bound: it uses each number it loads once",
                  "Its intensity is a constant below 1/2 FLOP per byte (SGD 1/6, momentum "
                  "1/5, Adam 3/7 in the course's count), left of the ridge wherever the "
                  "ridge is above 1/2, as on current CPUs and GPUs: the bytes it moves bound "
                  "its time, and those bytes are what sharding and float16 cut."),
        ]),
])
