"""Quiz: adaptive learning rates (AdaGrad and its local variant, Adam, AdaDelta)."""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Adaptive learning rates", [
    Question(
        "AdaGrad's rate for a coordinate is eta0 / sqrt(K + sum of its squared gradients). "
        "Which statements are true?", [
            right("directions with large gradients get their rate decreased aggressively",
                  "The deck's first bullet: a large g² makes the sum grow fast, so the rate "
                  "falls fast, 'to avoid instability'."),
            right("if gradients start vanishing, the rate stops decreasing as fast",
                  "The deck's second bullet: small new g² add little to the sum, so the "
                  "rate nearly stops falling."),
            wrong("the rates can grow again after a phase of large gradients",
                  "The sum of squared gradients never shrinks, so the rate never grows "
                  "back: AdaGrad remembers a violent start forever (that is why it stalled "
                  "on Rosenbrock). Forgetting takes the local variant or RMSProp."),
            right("it acts as a diagonal preconditioner",
                  "Each coordinate gets its own scale, as from a diagonal matrix: on the "
                  "valley x got a rate about 5 times larger than y."),
        ]),
    Question(
        "What does the deck's local AdaGrad change?", [
            right("it sums squared gradients over the last tau steps only",
                  "The deck's local variant: the sum runs from t - τ to t."),
            right("it forgets a violent start, so the rate can recover",
                  "Once the huge first gradients leave the window, the rate grows again: on "
                  "Rosenbrock it reached the valley floor where AdaGrad stalled, at the "
                  "price of spikes."),
            wrong("it needs no extra memory",
                  "To drop the squared gradient of τ steps ago it must still have it: τ "
                  "values per weight, τ copies of the model. RMSProp's exponential average "
                  "forgets with a single buffer."),
            right("with tau at least the number of steps it is plain AdaGrad",
                  "A window that reaches back to the first step never drops anything: it "
                  "is AdaGrad's full sum."),
        ]),
    Question(
        "Why does Adam divide m by (1 - beta1^t)?", [
            right("m starts at 0, so early averages are biased towards 0",
                  "m_1 = β1·0 + (1 - β1) g_1: the average still gives weight β1 to the zero "
                  "it started from. Dividing by 1 - β1^t removes the weight left on that "
                  "zero."),
            wrong("to make the learning rate decay over time",
                  "1 - β1^t tends to 1 within a few tens of steps (β1 = 0.9), so the "
                  "correction fades out; it decays nothing. Decay is a schedule's job."),
            right("without it the first steps would be about (1 - beta1) times too small",
                  "At t = 1, m = (1 - β1) g = 0.1 g for β1 = 0.9. (v has the same bias, "
                  "which its own factor 1 - β2^t corrects.)"),
            wrong("it makes Adam equal to SGD",
                  "With or without the correction, Adam divides by √v̂ per coordinate, "
                  "which SGD never does. The correction only rescales the first steps."),
        ]),
    Question(
        "Which optimizer needs no learning rate in its original form?", [
            right("AdaDelta",
                  "AdaDelta multiplies the gradient by the RMS of its own recent steps "
                  "over the RMS of recent gradients, so the update has the units of w and "
                  "no η."),
            wrong("RMSProp",
                  "RMSProp divides by the RMS of recent gradients but still multiplies by "
                  "a global η (0.001 in its paper, too small for the notebook's network)."),
            wrong("Adam",
                  "Adam multiplies m̂/√v̂ by η (0.001 by default): a default η is still "
                  "an η. The notebook's sensitivity table changes it, and Adam's loss "
                  "changes with it."),
            wrong("AdaGrad",
                  "The deck writes AdaGrad's rate as η0 / √(K + Σg²): η0 is a learning "
                  "rate to choose."),
        ]),
    Question(
        "You train embeddings for rare words (sparse gradients). A reasonable first "
        "choice?", [
            right("AdaGrad",
                  "A rare word's coordinates see few gradients, so their sum stays small "
                  "and their rate stays large: rare features still learn. The classic "
                  "choice for sparse features."),
            wrong("SGD with a constant learning rate",
                  "One rate for all: frequent words get many updates, rare ones few and "
                  "small, so rare words learn slowly, and a rate large enough for them "
                  "destabilises the frequent ones."),
            right("Adam",
                  "Adam also scales each coordinate's step by its own gradient history "
                  "(dividing by √v̂), so rare coordinates are not starved."),
        ]),
])
