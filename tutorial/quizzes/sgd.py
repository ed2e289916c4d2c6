"""Quiz: stochastic gradient descent (GD's problems, minibatches, decay, weight decay)."""

from tutorial.quizzes.capacity import HIGH_TRAINING_ERROR
from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Stochastic gradient descent", [
    Question(
        "Which are problems of full-batch gradient descent named in the lecture?", [
            right("every update needs a pass over the whole training set",
                  "The lecture's first problem: one update costs a pass over all m "
                  "examples, while minibatch SGD makes m/b updates for the same work."),
            right("it gets stuck at saddle points",
                  "The lecture's second problem: at a saddle the exact gradient vanishes "
                  "and GD stops; a minibatch gradient's noise pushes the run off the ridge. "
                  "In high dimensions (AlexNet has 60 million) saddles are everywhere."),
            right("it is thought to converge to sharp minima more often",
                  "The lecture's third problem: in a sharp minimum a small shift between "
                  "training and test loss costs a lot. 'Thought to' matters: for networks "
                  "it is an empirical finding (Keskar et al.)."),
            wrong("it cannot be computed on a GPU",
                  "A full-batch gradient is a larger sum of the same terms, which a GPU "
                  "computes well (memory permitting). The lecture's objections are the "
                  "cost of an update and where GD ends up, not the hardware."),
        ]),
    Question(
        "Rank the deck's vectorization ladder. Which statements hold?", [
            right("one matrix-matrix product MX beats n matrix-vector products Mx",
                  "The top rung of ⟨x, x'⟩ < Mx < MX: one launch instead of n, and a "
                  "product that reuses every number it loads many times (caches, SIMD, "
                  "GPU cores)."),
            right("n matrix-vector products beat d*n dot products <x, x'>",
                  "The middle rung: n operations instead of d·n, each doing d times more "
                  "arithmetic per launch."),
            right("a minibatch turns per-example Mx into one MX",
                  "Stacking b examples as the columns of X turns a dense layer's b "
                  "matrix-vector products into one matrix product: that is why minibatches "
                  "are fast."),
            wrong("all three compute different results",
                  "All three compute the same Y = MX, equal up to float rounding (each "
                  "adds the products in its own order; the notebook checks it). The ladder "
                  "is about speed only."),
        ]),
    Question(
        "The deck writes SGD as w <- (1 - 2*eta*lambda) w - eta*g_B. You want "
        "lambda = 0.0005. Which MXNet wd gives this update?", [
            wrong("wd = 0.0005",
                  "This copies λ into wd, but the two are coefficients of different things: "
                  "MXNet adds wd·w to the gradient, while the penalty λ‖w‖² adds its "
                  "derivative. Differentiate the penalty and compare."),
            right("wd = 0.001",
                  "The penalty λ‖w‖² adds 2λw to the gradient and MXNet adds wd·w, so "
                  "wd = 2λ = 0.001. The step is then (1 - η·wd)w - ηg = (1 - 2ηλ)w - ηg."),
            wrong("wd = 0.00025",
                  "Halving λ goes the wrong way: the derivative of λ‖w‖² is not λw/2. "
                  "Differentiate the penalty and compare with the wd·w MXNet adds to the "
                  "gradient."),
            wrong("wd = 2 * eta * 0.0005",
                  "2ηλ is the shrink factor of the whole step, and MXNet multiplies wd·w by "
                  "the learning rate itself: putting η into wd counts the learning rate "
                  "twice."),
        ]),
    Question(
        "Which statements about learning-rate decay follow the deck?", [
            right("alpha / sqrt(beta + t) is the canonical choice for convex problems",
                  "The deck's polynomial decay: 'canonical choice for convex solvers'."),
            wrong("exponential decay is recommended",
                  "The deck says 'not recommended': it decays so fast that training stops "
                  "early. In the notebook, 0.99 per step shrank the rate to almost nothing "
                  "within a few hundred steps, and that run ended with the highest "
                  "training loss."),
            right("piecewise constant often gives better accuracy in practice, albeit "
                  "slower convergence",
                  "The deck's SGD slide: 'quite often learning rate is piecewise constant "
                  "(this yields better accuracy in practice, albeit convergence is "
                  "slower)'."),
            right("keeping the rate until validation stops improving, then reducing it, "
                  "is a useful hack",
                  "The deck's own words, 'useful hack'; it is the reduce-on-plateau run in "
                  "the notebook."),
        ]),
    HIGH_TRAINING_ERROR,
    Question(
        "How does the choice of batch size matter?", [
            right("small batches do not use the computational resources efficiently",
                  "The lecture's scaling challenge, first half: a small batch gives the "
                  "hardware too little work per call (the vectorization ladder)."),
            right("very large batches bring back GD's problems: slow progress near "
                  "saddles, sharp minima",
                  "The second half: a very large batch's gradient is nearly exact, so it "
                  "loses the noise that carries SGD past saddles and out of sharp minima."),
            wrong("batch size only changes speed, never the result",
                  "The batch size sets the gradient's noise, and the noise changes where "
                  "training ends (saddles, sharp or flat minima) and which learning rates "
                  "work: two batch sizes at the same rate end at different weights."),
        ]),
])
