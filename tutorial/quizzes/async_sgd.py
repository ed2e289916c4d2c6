"""Quiz: asynchronous SGD (its issues, staleness, stragglers, Zhang et al., Hogwild).

The first question is the course notes' quiz, word for word; the data-parallel quiz asks
it too.
"""

from tutorial.quizzes.question import Question, Quiz, right, wrong

ISSUES = Question(
    "What are some possible issues with asynchronous stochastic gradient descent?", [
        right("Asynchronous stochastic gradient descent requires more epochs to train",
              "Listed by the lecture and the course notes, as a finding on deep networks. "
              "The notebook could not show it: on its small quadratic, async needed "
              "somewhat fewer gradients than sync to reach the target."),
        wrong("Asynchronous stochastic gradient descent does not overcome communication "
              "delays",
              "It does overcome them: nobody waits for the slowest worker or for an "
              "exchange to finish. That is its appeal; the course notes introduce its "
              "problems with 'overcomes communication delays, but...'."),
        right("Asynchronous stochastic gradient descent requires more hypertuning of "
              "hyperparameters, including momentum and learning rate",
              "Staleness shrinks the range of stable learning rates: in the "
              "asynchronous-SGD notebook eight stale workers diverge at rates one worker "
              "handles. (Momentum is the lecture's word; no run in the notebook uses it.)"),
        right("Asynchronous stochastic gradient has not been shown to scale and retain "
              "accuracy on large models",
              "The lecture's last caveat: an empirical finding about large models, which "
              "a small simulation cannot show either way."),
    ])

QUIZ = Quiz("Asynchronous SGD", [
    ISSUES,
    Question(
        "Eight equally fast workers take turns pushing to one server. How stale is a "
        "typical gradient?", [
            wrong("0 updates",
                  "Staleness 0 means nobody else updated the weights between a worker's "
                  "pull and its push: true for a single worker, not for eight taking "
                  "turns."),
            wrong("1 update",
                  "Count every push that reaches the server while one worker computes, not "
                  "only the next one."),
            right("7 updates",
                  "While a worker computes, each of the other W - 1 = 7 workers pushes "
                  "once, so its gradient lands 7 updates after the weights it read (the "
                  "staleness histogram peaks there)."),
            wrong("8 updates",
                  "A worker's own previous push reached the server before it pulled, so it "
                  "is already in the weights it reads: do not count it."),
        ]),
    Question(
        "When is asynchronous SGD most attractive?", [
            right("When worker speeds vary a lot (stragglers)",
                  "The deck: 'asynchronous: efficient for high time dispersion'. A "
                  "synchronous round lasts as long as its slowest worker; asynchronous SGD "
                  "does not wait for it."),
            wrong("When all workers are identical and dedicated",
                  "Then a synchronous round wastes little time waiting, so there is little "
                  "to gain, and staleness still costs: the deck's 'synchronous: easy for "
                  "homogeneous jobs'."),
            wrong("When you need bit-for-bit reproducible runs",
                  "An asynchronous run depends on the order in which gradients reach the "
                  "server, which the operating system decides: the same job gives "
                  "different weights from run to run."),
            right("When the gradients are sparse, as in Hogwild",
                  "Niu et al.'s argument: sparse updates rarely touch the same coordinate. "
                  "In the notebook, at one learning rate, 16 lock-free workers reached the "
                  "serial loss on the sparse problem and diverged on the dense one, whose "
                  "curvature is more than ten times larger."),
        ]),
    Question(
        "Zhang et al.'s staleness-aware rule applies a gradient computed at step 90 to "
        "the weights at step 100 with which learning rate?", [
            wrong("η",
                  "That is plain asynchronous SGD, which treats a stale gradient like a "
                  "fresh one. The rule exists to weigh stale gradients down."),
            right("η / 10",
                  "The async-SGD post: the gradient is 100 - 90 = 10 updates old, and the "
                  "rate is divided by that staleness."),
            wrong("η · 10",
                  "A stale gradient was computed at a point the weights have left; a "
                  "larger step would amplify that error, the opposite of what the rule is "
                  "for."),
            wrong("η / 100",
                  "100 is the step at which the gradient is applied, not how old it is. "
                  "The rule looks at the gradient's age."),
        ]),
    Question(
        "What does Hogwild assume?", [
            right("Weights in shared memory that every processor reads",
                  "The async-SGD post: 'a shared memory model with p processors … all "
                  "processors can read x'."),
            right("Atomic componentwise additions, no locks",
                  "The post: 'we assume that the componentwise addition operation is "
                  "atomic'; no lock guards a whole update."),
            wrong("A parameter server sharded over machines",
                  "That is Downpour SGD (Dean et al.): model replicas on many machines and "
                  "a sharded parameter server. Hogwild has no server, only one machine's "
                  "shared memory."),
            right("Sparse updates, so that concurrent updates rarely touch the same "
                  "coordinate",
                  "Niu et al.'s guarantees assume it. In the notebook the same learning "
                  "rate matched serial SGD on the sparse problem and diverged on the dense "
                  "one; at a rate cut to the same step relative to its curvature, the "
                  "dense problem trained too, but slowly."),
        ]),
])
