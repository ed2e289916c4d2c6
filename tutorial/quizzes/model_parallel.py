"""Quiz: model parallelism and pipelining. The first question is the course notes' own
(also in the data-parallel quiz); the others ask what the notebook computes, and their
numbers are checked against the library (``tests/quizzes/test_model_parallel_quiz.py``).
"""

from tutorial.quizzes.data_parallel import DATA_OR_MODEL
from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Model parallelism and pipelining", [
    DATA_OR_MODEL,
    Question(
        "GPipe with p = 4 stages and m = 12 micro-batches, every forward and backward taking the "
        "same time on every stage: what share of the stages' time is idle?", [
            right("3/15 = 20 %",
                  "(p - 1)/(m + p - 1) = 3/15."),
            wrong("3/12 = 25 %",
                  "The step lasts m + p - 1 = 15 forward-backward slots, not 12."),
            wrong("0: with enough micro-batches every stage is always busy",
                  "Filling and draining the pipe costs p - 1 slots per step whatever m is."),
            wrong("3/4 = 75 %",
                  "That is the naive schedule, (p - 1)/p: one stage at a time."),
        ]),
    Question(
        "Compared with GPipe (same p and m), the 1F1B schedule ...", [
            right("keeps at most p micro-batches of activations per stage, where GPipe keeps m",
                  "Stage s starts a new forward only after a backward has freed one: p - s at "
                  "most."),
            wrong("has a smaller bubble",
                  "In the schedule both take 2(m + p - 1) ticks, the same bubble: 1F1B saves "
                  "memory, not time. The bubbles measured and replayed in section 5 differ "
                  "by a few points between the two; that comes from the task times and the "
                  "run-to-run noise, not from the schedule's ticks."),
            right("computes exactly the same update",
                  "Both accumulate the m micro-batches' gradients and update once per step."),
            wrong("uses stale weights",
                  "It flushes the pipe before the update; stale weights come with the "
                  "asynchronous pipeline, which never flushes."),
        ]),
    Question(
        "Backpropagation is update locked. Which of these let a stage update without waiting for "
        "the whole backward pass of its micro-batch's step?", [
            right("An asynchronous pipeline that updates each stage as its gradient arrives",
                  "It never waits for a flush, at the price of gradients p - s - 1 updates stale."),
            right("Synthetic gradients",
                  "The stage updates at once from a predicted gradient; only the predictor waits."),
            wrong("GPipe with more micro-batches",
                  "More micro-batches shrink the bubble, but the update still waits for the step."),
            wrong("1F1B",
                  "1F1B reorders the same synchronous step; the update still waits."),
        ]),
    Question(
        "MSRA reported a 3.3x speed-up on 4 GPUs by pipelining, one layer per GPU. Which setups "
        "does the timing model say give about 3.3x?", [
            right("A synchronous pipeline with about 14 micro-batches per step",
                  "p m / (m + p - 1) = 4 x 14 / 17 = 3.29."),
            right("An asynchronous pipeline whose slowest stage takes about 21 % longer than the "
                  "average stage",
                  "p / imbalance = 4 / 1.21 = 3.31."),
            wrong("A synchronous pipeline with 4 micro-batches per step",
                  "4 x 4 / 7 = 2.29."),
            wrong("An asynchronous pipeline with balanced stages and free communication",
                  "That reaches 4x: the ideal the 3.3x falls short of."),
        ]),
])
