"""Quiz: large batches (linear scaling and warmup, the critical batch size, LARS, the
gradient noise scale, sharp minima). The last question asks about the notebook's runs;
each statement it treats as right is a check the notebook prints."""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Large batches", [
    Question(
        "K workers each use batch b and the single-worker run used lr = 0.1 at batch b. "
        "Following Goyal et al., which learning rate and schedule do you start from?", [
            wrong("0.1, constant",
                  "A K times larger batch means K times fewer steps per epoch; with the "
                  "same rate each example then moves the weights K times less. The "
                  "large-batch lecture notes rescale the rate with the batch."),
            wrong("K x 0.1 from the first step",
                  "That is the linear scaling rule without its safeguard. The rule assumes "
                  "the gradient hardly changes over K small steps, which fails early in "
                  "training: in the notebook the scaled rate from step 0 diverged at "
                  "batch 1024."),
            right("a warmup from 0.1 up to K x 0.1 over the first epochs, then the usual "
                  "schedule",
                  "Linear scaling (η̂ = Kη) keeps the update per example, and the warmup "
                  "covers the first steps, where the gradient changes too fast for the "
                  "rule's assumption; then the usual schedule."),
            wrong("0.1 / K, because the gradient is averaged over K times more examples",
                  "Averaging over more examples makes the gradient less noisy, not "
                  "smaller. A smaller rate shrinks every step while there are already K "
                  "times fewer of them."),
        ]),
    Question(
        "Past the critical batch size, doubling the batch ...", [
            wrong("roughly halves the steps to the target",
                  "That is perfect scaling, which holds well below B_crit. The fitted "
                  "curve S(B) = S_min(1 + B_crit/B) says what happens above it."),
            right("leaves the steps nearly unchanged while doubling the examples processed",
                  "The steps approach S_min, so the extra examples per step are wasted: "
                  "the deck's 'doing stupid things really fast'."),
            wrong("always lowers the final accuracy",
                  "B_crit is about the number of steps to a target, not about the final "
                  "accuracy: with scaling, warmup and schedules the ImageNet records keep "
                  "accuracy within about a point up to batches of 64k and more."),
            right("can still cut wall-clock time if a step's time does not grow",
                  "Time is steps times time per step: even a small cut in steps saves time "
                  "when more hardware keeps each step as fast. The ImageNet records do "
                  "exactly that: Goyal et al.'s 29x over He et al. is 32x fewer steps, each "
                  "about as long, on 32 times the processors."),
        ]),
    Question(
        "Why does LARS exclude biases and batch-norm parameters from the trust ratio, and "
        "what does MXNet's optimizer need to know which they are?", [
            right("their norms can be zero or tiny, so the ratio would be meaningless",
                  "A bias starts at 0, so its trust ratio ‖w‖ / (‖g‖ + β‖w‖) is 0 or "
                  "undefined and the bias would never move. You et al. leave them out."),
            wrong("nothing: gluon.Trainer passes parameter names automatically",
                  "MXNet's optimizer learns names only from param_idx2name, and "
                  "gluon.Trainer never passes one: without it LARS puts the biases under "
                  "the trust ratio too."),
            right("param_idx2name, numbered in the Trainer's sorted-name order",
                  "The optimizer sees parameter numbers; param_idx2name maps them to "
                  "names, and must follow the Trainer's own numbering (sorted names) to "
                  "name the right ones."),
            wrong("they are excluded because they have no gradient",
                  "Biases and batch-norm parameters have gradients and are trained like "
                  "any weight; they are only kept out of the trust ratio (and usually out "
                  "of weight decay)."),
        ]),
    Question(
        "What does the gradient noise scale B_simple = tr(Sigma)/|G|^2 tell you?", [
            right("the batch size above which a minibatch gradient is mostly signal rather "
                  "than noise",
                  "B_simple is the batch at which a minibatch gradient's noise is as large "
                  "as the gradient itself; above it the signal dominates."),
            right("it grows as training proceeds, so larger batches become useful later",
                  "McCandlish et al. find that |G|² falls faster than the noise as training "
                  "goes on, so B_simple grows: the reason behind batch-size warmup. The "
                  "notebook's 200 steps are too few to show it reliably (the growth changes "
                  "from one run to the next), so it does not check it."),
            wrong("the exact optimal batch size for any learning rate",
                  "It is a cheap estimate: it assumes the best learning rate at every step "
                  "and ignores curvature, so it predicts the scale of B_crit, not an exact "
                  "value."),
            right("it has the order of magnitude of the critical batch size",
                  "McCandlish et al.'s point, and the notebook's check: over the first 200 "
                  "steps it lies between a tenth of the smallest and ten times the largest "
                  "fitted B_crit, a wide window (the order of magnitude, no more)."),
        ]),
    Question(
        "In our runs, which statements about sharp minima hold?", [
            right("at the same lr, full-batch solutions had a larger top Hessian eigenvalue",
                  "More than 1.5 times the small-batch ones' at the end of the runs, and more "
                  "than twice at the same training loss (the notebook checks both): the "
                  "direction Keskar et al. report."),
            right("a larger lr at full batch gave a flatter solution",
                  "Raising the full-batch rate to 0.2 gave a λ_max below half of that at "
                  "0.025 at the end of the runs (the notebook checks it). Why, the runs do not "
                  "say: those at 0.2 also trained much further, and at the same training loss "
                  "they were not clearly flatter."),
            wrong("the full-batch solutions generalized clearly worse on digits",
                  "Their validation accuracy was no lower: all solutions lay within 0.03 "
                  "of each other. Sharpness differed, a generalization gap was not shown; "
                  "Keskar et al.'s gap came from much larger networks."),
            wrong("phi and lambda_max are two measures of the same thing",
                  "λ_max measures curvature only. φ is the largest rise of the loss in a "
                  "small box: where the loss still slopes (a point that is not yet a "
                  "minimum), moving uphill raises it whatever the curvature."),
        ]),
])
