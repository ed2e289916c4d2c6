"""Quiz: summing gradients (parameter server, reduction tree, butterfly, ring)."""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Gradient aggregation", [
    Question(
        "Why can one parameter server become the bottleneck?", [
            right("Its link carries N-1 gradients in and N-1 sums out at every step",
                  "All the traffic goes through one node: its link carries 2(N-1) vectors "
                  "per step while every other link carries two, and that grows linearly "
                  "with N."),
            wrong("Every worker must send N-1 gradients",
                  "A worker sends only its own gradient, once, and receives the sum once. "
                  "Look at the server's link instead of the workers'."),
            right("Sharding the parameters over several servers spreads that load",
                  "With S servers each owning one chunk, a server sends the sum of its chunk "
                  "(1/S of the vector) to N-1 nodes and, as a worker, its other S-1 chunks: "
                  "(N-1)/S + (S-1)/S gradients. For N = 8 the notebook printed 7 with one "
                  "server, 4 with two and 1.75 with eight, which is 2(N-1)/N, the ring's "
                  "volume."),
            wrong("A parameter server moves fewer bytes in total than a ring",
                  "In total both move 2(N-1) gradient-sized vectors per allreduce. The "
                  "difference is where they flow: through one server's link, or spread "
                  "over every link of the ring."),
        ]),
    Question(
        "An allreduce tree (reduce, then broadcast) over N nodes takes about ...", [
            right("2 log2 N steps",
                  "log2 N steps to add up the tree and log2 N to send the sum back down: "
                  "reduce and broadcast are separate (the lecture's seven nodes: two steps "
                  "up, two down)."),
            wrong("log2 N steps",
                  "That counts one direction only. Once the sum has reached the root, it "
                  "still has to travel back to every node."),
            wrong("N - 1 steps",
                  "That is the reduce half of a chain, passing a running sum from node to "
                  "node (the exercise's chain needs as many steps again to send the sum "
                  "back). A tree adds in parallel on every level, so its step count grows "
                  "with its depth."),
            right("2^k - 1 nodes fill every level of the binary tree",
                  "A full binary tree with k levels has 2^k - 1 nodes: the course notes' "
                  "'ideal for power of two number of nodes - 1'. The lecture's seven nodes "
                  "are one such tree."),
        ]),
    Question(
        "Which are true of the butterfly allreduce?", [
            right("It takes log2 N steps when N is a power of two",
                  "At step k each node swaps its vector with the node at distance 2^k and "
                  "both add; after log2 N steps everyone holds the sum (four nodes: two "
                  "steps)."),
            right("When N is a power of two it needs half the steps of the tree",
                  "log2 N against the tree's 2 log2 N (four nodes: 2 steps against 4), with "
                  "the same log complexity, as the course notes say. Otherwise fold and "
                  "unfold add two steps: in the notebook's table, at N = 3 the butterfly "
                  "takes 3 steps and the tree 2."),
            wrong("It needs a separate broadcast at the end",
                  "Both partners of a swap add, so after every step they hold the same "
                  "partial sum, and at the end every node holds the total: nothing is left "
                  "to broadcast."),
            right("With N not a power of two, extra nodes fold in first and get the sum "
                  "back at the end",
                  "The N - P nodes beyond the largest power of two P fold their vector into "
                  "a partner, the P nodes run the butterfly, and the partners hand the sum "
                  "back: log2 P + 2 steps."),
        ]),
    Question(
        "Which are true of the ring allreduce?", [
            right("Each node sends 2(N-1)/N of its data, less than twice its gradient "
                  "whatever N is",
                  "N - 1 reduce-scatter and N - 1 all-gather steps of 1/N of the data "
                  "each: less than twice the gradient, whatever N. That reaches the "
                  "bandwidth lower bound."),
            right("Each node only sends to its right neighbour",
                  "The lecture: each node only ever sends data to its right neighbour and "
                  "receives from its left one."),
            wrong("Its latency cost 2(N-1)α does not grow with N either",
                  "2(N-1) steps mean 2(N-1) message latencies, which grow linearly with N. "
                  "For small messages latency dominates, and the algorithm with the fewest "
                  "message latencies in a row wins (the butterfly's log2 N)."),
            right("The slowest link sets its speed",
                  "Every link is busy at every step and each step waits for all of them, "
                  "so one slow link slows every step (the lecture: 'determined solely by "
                  "the slowest connection')."),
        ]),
])
