"""Quiz: capacity control (overfitting, dropout, DropConnect, early stopping).

The first two questions are the course notes' quiz; the first refers to the plot of a
straight line fitted to curved data that the notebook draws just above the quiz.
"""

from tutorial.quizzes.question import Question, Quiz, right, wrong

HIGH_TRAINING_ERROR = Question(
    "If a model has high training error, which of the following solutions should be "
    "employed?", [
        right("Bigger model",
              "The course notes' first remedy for high training error: a model with more "
              "capacity can follow the data (in the capacity notebook a network with two "
              "hidden units per layer could not even fit its training set; a bigger one "
              "could)."),
        wrong("More data",
              "The course notes list more data under high *validation* error. More "
              "examples make the training set harder to fit, not easier: they cure "
              "memorising, not a model that cannot fit."),
        right("Train longer",
              "The notes' second remedy: an optimisation that has not finished leaves a "
              "high training error too (the big network after one epoch, in the capacity "
              "notebook)."),
        wrong("More regularization, such as dropout and weight decay",
              "Regularization holds the model back from fitting its training data; that "
              "cures high validation error. Against high training error it makes things "
              "worse: too much weight decay lowers even the training accuracy."),
    ])

QUIZ = Quiz("Capacity control", [
    Question(
        "Which of the following terms best describes the model (the red line above) in "
        "relation to the data it models?", [
            wrong("Overfitting",
                  "Overfitting means a model follows its training data too closely, noise "
                  "included: small training error, much larger validation error. Compare "
                  "this line's error on the very points it was fitted to with the noise "
                  "level (the check above)."),
            right("Underfitting",
                  "A straight line cannot follow a curve: its training error is more than "
                  "10 times the noise variance (the check above). The model is too simple "
                  "for the data, and the symptom is a high training error."),
            wrong("Good fit",
                  "A good fit leaves a training error close to the noise level (variance "
                  "0.09 here). The check above compares this line's error with it."),
        ]),
    HIGH_TRAINING_ERROR,
    Question(
        "Our Dropout(0.5) block, at prediction time (outside autograd.record()):", [
            wrong("multiplies every activation by 0.5",
                  "That is the rule of the original, non-inverted dropout, which does not "
                  "scale while training. Our block scales the kept units by 1/(1 - p) "
                  "during training, so nothing is left to scale when predicting."),
            right("returns its input unchanged",
                  "Outside autograd.record(), autograd.is_training() is False and the "
                  "block returns x: prediction uses every unit."),
            wrong("draws a new mask for every call",
                  "A new mask for every step is the training behaviour. When predicting, a "
                  "random mask would give the same image different answers; the block "
                  "draws none."),
            right("gives the expected value of its training-time output",
                  "With ξ = 0 with probability p and 1/(1 - p) otherwise, E[ξx] = x: "
                  "the identity is exactly the average of what the block does in "
                  "training."),
        ]),
    Question(
        "Which statements about DropConnect, as implemented here, are true?", [
            right("it zeroes individual weights, not whole units",
                  "It masks entries of the weight matrix, (M ⊙ W)x; dropout zeroes a unit, "
                  "which removes all of its outgoing weights at once."),
            right("it draws a new mask at every training step",
                  "The deck: 'draw a new mask for every step'. Ours shares one mask across "
                  "the minibatch; the paper draws one per example."),
            right("when predicting it uses the expected weights W",
                  "E[M ⊙ W] / (1 - p) = W: when predicting it is an ordinary Dense layer."),
            wrong("it also zeroes the bias",
                  "Only the weight matrix is masked: y = (M ⊙ W)x / (1 - p) + b keeps the "
                  "bias whole."),
        ]),
    Question(
        "Early stopping with a patience of p epochs on validation accuracy:", [
            wrong("keeps the weights of the last epoch",
                  "The last epoch is where patience ran out, up to p epochs after the "
                  "best one. EarlyStopping copies the weights at every improvement and "
                  "puts a copy back at the end."),
            right("keeps the weights of the epoch with the best validation accuracy",
                  "It saves a copy whenever the validation accuracy improves and restores "
                  "the best copy when it stops."),
            right("makes the validation accuracy of the kept model slightly optimistic",
                  "It chose its epoch by looking at the validation set, so that set is no "
                  "longer unseen: its accuracy is the best of many looks."),
            right("needs a separate test set for an honest final number",
                  "Because the validation set took part in the choice, only a set that no "
                  "decision looked at (the test column of the table) measures the kept "
                  "model honestly."),
        ]),
])
