"""Quiz: a CNN with BatchNorm on several devices. The questions come from the lecture's
throughput yardstick, the deck's BatchNorm line, Smith et al.'s growing batch (in the
lecture's large-batch recipes), and what notebook 11 measures (the
equivalences are pinned in ``tests/parallel/test_sync_batchnorm.py``)."""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Large batches on a CNN with BatchNorm", [
    Question(
        "A batch of 256 images is split over 4 devices, each with plain gluon.nn.BatchNorm. "
        "Whose mean and variance normalise an image on device 2?", [
            right("Those of the 64 images on device 2",
                  "Each device normalises its own shard: 'ghost' batches of 64."),
            wrong("Those of all 256 images",
                  "That takes SyncBatchNorm, which sums the statistics over the devices."),
            wrong("The running mean and variance",
                  "Those are used in prediction mode; training uses the batch's statistics."),
            wrong("Those of the image itself",
                  "BatchNorm averages over the batch and the pixels, per channel."),
        ]),
    Question(
        "SyncBatchNorm on K devices with b images each, against gluon.nn.BatchNorm on one "
        "device with all K·b images (same weights, same batch): ...", [
            right("the outputs and the summed gradients agree, far more closely than ghost "
                  "BatchNorm's",
                  "Both normalise with the statistics of all K·b images. Notebook 11 checks "
                  "sync against the whole batch computed in float64: on CPU contexts outputs "
                  "(absolute) and gradients (relative) within 1e-5 at all b but at most one, "
                  "and at every b it tried, sync's gradients are more than 5 times closer to the whole "
                  "batch's than ghost BatchNorm's."),
            wrong("they differ more the smaller b is",
                  "SyncBatchNorm's statistics are the whole batch's at every b. Ghost "
                  "BatchNorm's gradient gap is the one that was larger at b = 1 than at b = 32 "
                  "(the notebook's check; its output gaps did not fall steadily with b)."),
            wrong("they agree only when b is large",
                  "Notebook 11's check holds at every b it tried, from 1 to 32 images per "
                  "device."),
            wrong("they differ because every device keeps its own running statistics",
                  "Running statistics are not used in training mode."),
        ]),
    Question(
        "The lecture wants throughput tau_K = K · tau_ref. Notebook 11 measures "
        "tau_4 / (4 · tau_1) on 4 CPU contexts standing in for GPUs on one "
        "machine. What does that number show there?", [
            right("That 4 contexts sharing the same cores give no 4-fold speed-up",
                  "They run on the cores one context already used, so they add no compute; "
                  "how fast they go together depends on the machine and on what else it "
                  "runs, so the notebook checks nothing about it on CPU contexts."),
            wrong("The cost of splitting the batch over the contexts",
                  "The efficiency divides by 4 · tau_1: it is about 1/4 even when 4 contexts "
                  "are exactly as fast as one, with no cost at all. The timings do not "
                  "separate a cost of splitting from their noise."),
            wrong("The speed-up 4 GPUs would give",
                  "That takes 4 devices with compute of their own; on GPUs the same cell "
                  "measures it."),
            wrong("1.0 or more, since 4 contexts process 4 batches at once",
                  "They process them on the same cores: 4 contexts cannot do 4 times one "
                  "context's work."),
            wrong("The cost of getting data in",
                  "Real and synthetic input are both timed; on a shared machine the "
                  "difference between their rows also carries the timings' noise."),
        ]),
    Question(
        "The deck: 'Batch Normalization doesn't work well when mini batches are too large. "
        "Rescale it'. Under data parallelism, what did notebook 11 measure?", [
            right("SyncBatchNorm's first step matches the whole batch's at every per-device "
                  "batch it tried",
                  "Against the whole batch computed in float64, outputs and gradients within "
                  "1e-5 on CPU contexts (outputs absolute, gradients relative) at b = 1, 2, 8 and "
                  "32 but at most one (a flipped ReLU can move a gradient by about 1e-3), where "
                  "ghost BatchNorm's outputs differ by more than 1e-2; float32 BatchNorm on one "
                  "device is itself less exact. (Whether ghost BatchNorm "
                  "also trains worse at tiny b is printed for one run, not checked: the gap "
                  "changes a lot with the starting weights and the batches.)"),
            right("What BatchNorm sees is the per-device batch, not the total batch",
                  "A large batch split over many devices gives small ghost batches."),
            wrong("A large total batch by itself makes BatchNorm's outputs wrong",
                  "SyncBatchNorm over any total batch computes what one device would."),
            wrong("SyncBatchNorm trains worse than ghost BatchNorm at every batch size",
                  "It computes the whole batch's statistics: its training loss followed the "
                  "whole batch's step by step, within 1e-3 over the first 5 steps at every "
                  "b >= 4 (notebook 11's check)."),
        ]),
    Question(
        "Smith et al. grow the batch by 4 where a schedule would divide the learning rate by 4. "
        "Over one epoch, compared with decaying the rate, ...", [
            right("the ratio of learning rate to batch size is the same",
                  "Both divide lr / B by 4: the noise of SGD's steps falls alike."),
            right("there are 4 times fewer steps",
                  "The same images in batches 4 times larger: that is the saving."),
            wrong("the learning rate is 4 times smaller",
                  "Growing the batch keeps the rate; only the batch changes."),
            wrong("the gradient noise stays as it was",
                  "A 4 times larger batch averages the gradient's noise down (its variance "
                  "by 4); decaying the rate keeps that noise and shrinks each step instead."),
        ]),
])
