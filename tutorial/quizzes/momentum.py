"""Quiz: momentum (heavy ball, the stability limit, Nesterov, clipping)."""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Momentum", [
    Question(
        "Heavy-ball momentum keeps s <- mu*s + lr*g. Which statements are true?", [
            right("s is a weighted sum of recent gradients, weights mu^k",
                  "Unrolled, s_t = η(g_t + μ g_{t-1} + μ² g_{t-2} + …): the gradient of k "
                  "steps ago has weight μ^k."),
            right("it averages over roughly 1/(1 - mu) steps",
                  "The weights μ^k add up to 1/(1 - μ) and fade after about that many "
                  "steps: 10 for μ = 0.9, 100 for μ = 0.99."),
            wrong("gradient components that alternate in sign are amplified",
                  "Alternating terms cancel in the weighted sum (g - μg + μ²g - … = "
                  "g/(1 + μ)): they are damped. That is how momentum calms the zig-zag "
                  "across a valley."),
            right("a constant gradient produces steps up to 1/(1 - mu) times larger than "
                  "SGD's",
                  "With a constant g the sum grows towards ηg/(1 - μ): 10 times SGD's step "
                  "for μ = 0.9. Components that agree add up."),
        ]),
    Question(
        "GD on f = 0.05 x^2 + y^2. Which learning rates make it converge?", [
            right("0.5",
                  "Each step multiplies the distance along an axis of curvature L by "
                  "|1 - ηL|: |1 - 0.5·2| = 0 along y, |1 - 0.5·0.1| = 0.95 along x. Both "
                  "are below 1."),
            right("0.99",
                  "|1 - 0.99·2| = 0.98 < 1: y flips sign every step but shrinks, so GD "
                  "converges, zig-zagging, right at the edge. The limit is "
                  "η < 2 / (largest curvature) = 2 / 2 = 1."),
            wrong("1.5",
                  "Along y (curvature 2) each step multiplies the distance to the minimum "
                  "by |1 - 2η|. Work out that factor at this rate: if it is above 1, every "
                  "step takes GD further away."),
            wrong("any, if we run long enough",
                  "Running longer only helps when each step shrinks the error. The steep "
                  "direction sets a limit on the rate: above it each step multiplies the "
                  "error by a factor larger than 1, and more steps make things worse."),
        ]),
    Question(
        "What can too much momentum (e.g. 0.99 where 0.9 works) do?", [
            right("overshoot the minimum and oscillate around it",
                  "The averaging window (about 100 steps at 0.99) is longer than the valley "
                  "is wide: the ball keeps its speed past the minimum and circles back."),
            wrong("make each step cheaper to compute",
                  "A step costs the same for every μ: one gradient and one buffer update. "
                  "μ changes where the steps go, not what they cost."),
            right("slow convergence down compared with a moderate momentum",
                  "Measured in the notebook: past a point the loss after 100 steps rises "
                  "with μ, and on the digits network μ = 0.99 ended more than twice as high "
                  "as μ = 0.9."),
            wrong("prevent any oscillation",
                  "Moderate momentum damps the oscillation across a valley; too much of it "
                  "creates a new, slower one, the ball circling the minimum."),
        ]),
    Question(
        "Nesterov's accelerated gradient...", [
            right("evaluates the gradient at the look-ahead point w - mu*m",
                  "The deck's recurrence, m_{t+1} = μ m_t + ε g(w_t - μ m_t): it takes the "
                  "gradient where momentum is about to carry the weights."),
            wrong("needs two gradient evaluations per step",
                  "One gradient per step, taken at the look-ahead point instead of at w. "
                  "It costs the same as the heavy ball."),
            right("in MXNet, stores the look-ahead point as the weight",
                  "MXNet's nag keeps u_t = w_t - μ m_t, a change of variables that needs "
                  "the gradient at the stored weight only; the deck's recurrence retraces "
                  "MXNet's path once we look at w_t - μ m_t."),
            right("brakes before overshooting, so it tolerates more momentum",
                  "The look-ahead gradient already points back when the ball is about to "
                  "pass the minimum: where the heavy ball overshoots, Nesterov ended "
                  "several times lower in the notebook's table."),
        ]),
    Question(
        "Gradient clipping (clip_gradient = c)...", [
            right("prevents parameters from diverging after a rare huge gradient",
                  "The deck's slide: clipping 'prevents parameters from diverging', 'hacky "
                  "but necessary (e.g. deep architectures)'. On Rosenbrock the unclipped "
                  "run with momentum diverged within a few steps, while the runs clipped "
                  "at 10 and at 1 stayed finite."),
            right("changes the direction of the gradient when some components are cut",
                  "clip_gradient cuts each component to [-c, c] on its own, so a gradient "
                  "with one huge component turns towards the others. Clipping by the "
                  "global norm keeps the direction."),
            wrong("is needed for every convex problem",
                  "Convexity does not make gradients huge: many convex problems have "
                  "gradients of a predictable size and a safe learning rate. Clipping is a "
                  "guard against rare huge gradients, which deep networks produce."),
            right("keeps every update bounded by lr * c per component (without momentum)",
                  "Each clipped component lies in [-c, c], so a plain SGD step moves a "
                  "weight by at most lr·c (plus the weight-decay term, which MXNet adds "
                  "after clipping). With momentum the buffer adds up several clipped "
                  "steps."),
        ]),
])
