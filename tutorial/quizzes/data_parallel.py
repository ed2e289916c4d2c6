"""Quiz: data parallelism. The course notes' quiz questions, in their words.

The notes print the last batch option as "2034 nodes each with a node batch size of 1";
2034 nodes of 1 are not a total batch of 1024, so it reads 1024 here, as in the lecture.
"""

from tutorial.quizzes.async_sgd import ISSUES
from tutorial.quizzes.question import Question, Quiz, right, wrong

DATA_OR_MODEL = Question(
    "Which of the following characteristics are true of a data-parallel approach?", [
        right("The algorithm distributes the data between various cores",
              "The definition: the same model on every core (node), a different part of "
              "the data on each; they then exchange their gradients."),
        wrong("Each core is responsible for estimating different parameter(s)",
              "That is model parallelism, in the lecture's words: 'each node is "
              "responsible for estimating different parameters'. In data parallelism "
              "every core estimates all of them."),
        right("A data-parallel approach is useful when there are smaller number of "
              "nodes in the cluster",
              "Every node exchanges a gradient as large as the model at every step; "
              "with few nodes that traffic stays small next to the computation."),
        wrong("A data-parallel approach is useful when the number of parameters to be "
              "estimated is large",
              "Each step moves one gradient value per parameter between the nodes, so "
              "many parameters mean much communication. The lecture: data parallelism "
              "is better for networks with few weights, like GoogLeNet."),
    ])

QUIZ = Quiz("Data parallelism", [
    DATA_OR_MODEL,
    Question(
        "You are training a model on multiple nodes and have set your total batch size to "
        "be 1024. You are now trying to decide node batch sizes and the number of nodes to "
        "use. Which of the following options is correctly matched with a reasonable "
        "justification as to their respective benefits or problems?", [
            wrong("2 nodes each with a node batch size of 512: while each node is not "
                  "computing very much, there is too much communication between nodes, "
                  "making this inefficient",
                  "The justification is backwards: with 512 samples each node computes a "
                  "lot and exchanges one gradient per step, so communication is small next "
                  "to computation. Its real cost is lost parallelism: every step waits for "
                  "512 samples' worth of compute."),
            right("16 nodes each with a node batch size of 64: the communication between "
                  "nodes is effectively hidden in the computation",
                  "The lecture's own example: with 64 samples per node, computing takes "
                  "long enough for the exchange of gradients to overlap with it (the "
                  "notebook's table estimates from which batch on)."),
            right("512 nodes each with a node batch size of 2: there is too much "
                  "communication and too little computation, making this quite "
                  "inefficient",
                  "Every node still exchanges a whole model's worth of gradient each step, "
                  "but computes on only 2 samples: communication dominates."),
            wrong("1024 nodes each with a node batch size of 1: this would theoretically "
                  "be ideal, but a batch size of 1 is not possible given hardware "
                  "constraints",
                  "A batch of 1 runs on any hardware (it is pure SGD). The real problem is "
                  "elsewhere: think about what each node must send at every step, and how "
                  "little it computes in between."),
        ]),
    ISSUES,
])
