"""The model-parallel notebook's quiz, as data: each option with whether it is right and why.

The first question is the course notes' own; the others ask what the notebook measured or
computed (the numbers in them are checked by ``tests/test_pipeline_quiz.py``).

>>> len(QUESTIONS), [sum(ok for _, ok, _ in q["options"]) for q in QUESTIONS]
(5, [2, 1, 2, 2, 2])
"""

QUESTIONS = [
    {"text": "Which of the following characteristics are true of a data-parallel approach?",
     "options": [
         ("The algorithm distributes the data between various cores", True,
          "Data parallel: the same model everywhere, different parts of the data."),
         ("Each core is responsible for estimating different parameter(s)", False,
          "That is model parallelism: each device holds and updates its own stage."),
         ("A data-parallel approach is useful when there are smaller number of nodes in the "
          "cluster", True,
          "The allreduce does not shrink with more nodes while each node's compute does: "
          "the cost model's efficiency falls as N grows."),
         ("A data-parallel approach is useful when the number of parameters to be estimated "
          "is large", False,
          "Every step sends as many numbers as there are parameters; huge layers favour "
          "model parallelism, which sends only the activations at the cuts."),
     ]},
    {"text": "GPipe with p = 4 stages and m = 12 micro-batches, every forward and backward "
             "taking the same time on every stage: what share of the stages' time is idle?",
     "options": [
         ("3/15 = 20 %", True, "(p - 1)/(m + p - 1) = 3/15."),
         ("3/12 = 25 %", False, "The step lasts m + p - 1 = 15 forward-backward slots, not 12."),
         ("0: with enough micro-batches every stage is always busy", False,
          "Filling and draining the pipe costs p - 1 slots per step whatever m is."),
         ("3/4 = 75 %", False, "That is the naive schedule, (p - 1)/p: one stage at a time."),
     ]},
    {"text": "Compared with GPipe (same p and m), the 1F1B schedule ...",
     "options": [
         ("keeps at most p micro-batches of activations per stage, where GPipe keeps m", True,
          "Stage s starts a new forward only after a backward has freed one: p - s at most."),
         ("has a smaller bubble", False,
          "Both take 2(m + p - 1) ticks: 1F1B saves memory, not time."),
         ("computes exactly the same update", True,
          "Both accumulate the m micro-batches' gradients and update once per step."),
         ("uses stale weights", False,
          "It flushes the pipe before the update; stale weights come with the asynchronous "
          "pipeline, which never flushes."),
     ]},
    {"text": "Backpropagation is update locked. Which of these let a stage update without "
             "waiting for the whole backward pass of its micro-batch's step?",
     "options": [
         ("An asynchronous pipeline that updates each stage as its gradient arrives", True,
          "It never waits for a flush, at the price of gradients p - s - 1 updates stale."),
         ("Synthetic gradients", True,
          "The stage updates at once from a predicted gradient; only the predictor waits."),
         ("GPipe with more micro-batches", False,
          "More micro-batches shrink the bubble, but the update still waits for the step."),
         ("1F1B", False, "1F1B reorders the same synchronous step; the update still waits."),
     ]},
    {"text": "MSRA reported a 3.3x speed-up on 4 GPUs by pipelining, one layer per GPU. Which "
             "setups does the timing model say give about 3.3x?",
     "options": [
         ("A synchronous pipeline with about 14 micro-batches per step", True,
          "p m / (m + p - 1) = 4 x 14 / 17 = 3.29."),
         ("An asynchronous pipeline whose slowest stage takes about 21 % longer than the "
          "average stage", True, "p / imbalance = 4 / 1.21 = 3.31."),
         ("A synchronous pipeline with 4 micro-batches per step", False,
          "4 x 4 / 7 = 2.29."),
         ("An asynchronous pipeline with balanced stages and free communication", False,
          "That reaches 4x: the ideal the 3.3x falls short of."),
     ]},
]
