"""Quiz: scaling out with less communication. Local and post-local SGD are the lecture's
last slide ("giving up consistency between model parameters across different workers
after each update"; "combining coupled global SGD and decoupled local SGD"); the others
ask what the notebook computes (the ring's bytes: the deck's "Baidu uses this ... efficient
use of bandwidth"), and their numbers are checked against the library
(``tests/quizzes/test_scaling_out_quiz.py``).
"""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Scaling out: local SGD, gradient compression and Horovod's ring", [
    Question(
        "K workers run local SGD with H = 1 (they average their weights after every step), "
        "each on its own b samples, with plain SGD. This is ...", [
            right("synchronous SGD on the combined batch of K*b samples",
                  "The mean of K SGD steps from the same weights is one step along the mean "
                  "gradient; the notebook checks it against the data-parallel trainer."),
            wrong("asynchronous SGD",
                  "Every worker waits for the average before its next step: nothing is stale."),
            wrong("K independent runs averaged at the end",
                  "That is H = T: one round in all, the workers never talk before the end."),
            wrong("a different optimizer that only approximates synchronous SGD",
                  "Up to float rounding it is exactly synchronous SGD."),
        ]),
    Question(
        "512 steps. How many communication rounds (weight averages) does each run take?", [
            right("local SGD with H = 16: 32 rounds",
                  "One average every 16 steps: 512 / 16."),
            right("post-local SGD, synchronous for the first 128 steps, then H = 16: 152 rounds",
                  "128 rounds in the synchronous phase, then 384 / 16 = 24."),
            wrong("synchronous SGD: 256 rounds",
                  "Synchronous SGD averages (or sums gradients) after every one of the 512 "
                  "steps."),
            wrong("local SGD with H = 16: 16 rounds",
                  "512 / 16 = 32."),
        ]),
    Question(
        "MXNet's 2-bit compression with threshold t: a gradient entry is 0.3 and t = 0.5. "
        "What happens to it?", [
            right("Nothing is sent for it this step; 0.3 stays in the worker's residual",
                  "|0.3| < t, so q = 0 and r = 0.3: it is added to the next step's gradient."),
            right("Once the residual reaches t, the worker sends +t and keeps the rest",
                  "r >= t gives q = +t and r - t stays behind: error feedback."),
            wrong("It is rounded to 0 and lost",
                  "Without error feedback it would be; the residual keeps it."),
            wrong("It is sent as 0.5 at once",
                  "Only values whose residual reaches t are sent."),
        ]),
    Question(
        "The notebook's MLP has 4,810 weights in 4 tensors. What does one worker push in one "
        "step (payload, 32-bit words, headers not counted)?", [
            right("2-bit compression: 1,204 bytes, about 16 times less than 32-bit",
                  "16 two-bit values per 32-bit word, per tensor: 256 + 4 + 40 + 1 words."),
            right("signSGD: 1,204 bytes, 2 bits per weight (a sign is -1, 0 or +1)",
                  "A zero gradient and a tied vote give sign 0, so three values: 16 per word, "
                  "256 + 4 + 40 + 1 words, and as many come back."),
            wrong("signSGD: 604 bytes, one bit per weight",
                  "One bit holds only + or -; the notebook's workers also send 0 (a zero "
                  "gradient), and so does the vote (a tie): three values take 2 bits."),
            wrong("32-bit: 4,810 bytes",
                  "4 bytes per weight: 19,240 bytes."),
            wrong("2-bit compression: 19,240 bytes up, but only 1,204 bytes back",
                  "It is the other way round with a parameter server: MXNet compresses the "
                  "push; the pull brings 32-bit weights."),
        ]),
    Question(
        "signSGD with majority vote, 4 workers. For one weight, the workers' gradients have "
        "signs +, +, -, -. What step does every worker take on it?", [
            right("None: the vote is a tie, sign(0) = 0",
                  "sign(+1 +1 -1 -1) = 0. With an odd number of workers a tie needs a zero "
                  "gradient."),
            wrong("+lr, the first worker's sign",
                  "The server adds all four signs."),
            wrong("-lr * (mean gradient)",
                  "The vote sends only signs; magnitudes never leave the workers."),
        ]),
    Question(
        "signSGD with majority vote, 3 workers. For one weight their gradients are +10, -1 "
        "and -1. What step does every worker take on it (learning rate lr)?", [
            right("+lr: two of the three signs are negative, so the vote is -1 and w - lr * "
                  "(-1) = w + lr",
                  "sign(+1 - 1 - 1) = -1. Magnitudes never leave the workers: the +10 counts "
                  "as one vote."),
            wrong("-lr: the summed gradient +8 is positive",
                  "That is the sign of the summed gradient, which would need the 32-bit "
                  "gradients; the server only sees the three signs."),
            wrong("-8 lr / 3: the mean gradient times lr",
                  "signSGD steps by lr times a sign, never by a gradient's size."),
        ]),
    Question(
        "16 workers exchange gradients of M bytes every step. Per step, ...", [
            right("the server of a one-server parameter server sends 16 M",
                  "It sends the new weights back to each of the 16 workers: W M / S."),
            right("a Horovod rank sends 2 x 15/16 M, less than 2 M however many ranks there are",
                  "Ring allreduce: (W - 1)/W M in the reduce-scatter, as much in the allgather."),
            wrong("a Horovod rank sends 16 M",
                  "No rank sends to every other; each sends chunks of M/W to its neighbour, "
                  "2 (W - 1) times."),
            wrong("a parameter-server worker sends 16 M",
                  "A worker pushes its own M; it is the server that serves all 16."),
        ]),
    Question(
        "Which of these reduce what the workers send per step, for the same number of steps?", [
            right("2-bit compression of the gradients",
                  "16 times fewer bits per push."),
            right("local SGD with H = 8",
                  "One round per 8 steps, so 8 times fewer rounds (each a full 32-bit average)."),
            wrong("A larger batch per worker",
                  "The gradient has as many values whatever the batch; fewer steps per epoch, "
                  "but each step sends the same."),
            wrong("Post-local SGD with switch = all steps",
                  "That is synchronous SGD throughout: a round every step."),
        ]),
])
