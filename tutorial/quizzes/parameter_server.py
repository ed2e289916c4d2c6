"""Quiz: parameter servers (what they do, their bottleneck, dist_sync and dist_async).

No question here asks what to pass to ``trainer.step``: that is the notebook's exercise.
"""

from tutorial.quizzes.question import Question, Quiz, right, wrong

QUIZ = Quiz("Parameter servers", [
    Question(
        "What does a parameter server do in data-parallel training?", [
            right("It holds (a shard of) the weights as (key, value) pairs",
                  "The deck's '(key, value) store': every parameter tensor is a key whose "
                  "value lives on a server; with several servers each holds a shard."),
            right("It adds the gradients the workers push and applies the optimizer",
                  "The servers store, sum and update: gradients go in, new weights come "
                  "out."),
            wrong("It computes the forward and backward pass of its shard of the data",
                  "Computing gradients is the workers' job. A server never sees the data; "
                  "it only stores, sums and updates."),
            right("In dist_sync it waits for every worker's gradient before updating",
                  "That is the clock: a synchronous server answers get(·, t) only once "
                  "every worker's put(·, ·, t) has arrived, so all workers pull the same "
                  "weights."),
        ]),
    Question(
        "Why can the parameter server become the bottleneck?", [
            right("Every worker sends its whole gradient to it and pulls the whole model "
                  "each step",
                  "All-to-one traffic, which the course notes call a 'high communication "
                  "cost'."),
            right("Its network link carries W times the model size per step, in and out",
                  "W gradients in and W copies of the weights out per step, all through "
                  "one link, while each worker's link carries one of each."),
            wrong("It has to compute the gradients of all workers",
                  "Servers never compute gradients, and adding W of them is cheap. The "
                  "cost lies in moving them."),
            right("Sharding the keys over several servers divides each server's traffic",
                  "MXNet places each key on one server and splits very large tensors over "
                  "all of them, so S servers carry about 1/S each; an allreduce removes "
                  "the central node altogether."),
        ]),
    Question(
        "With kvstore='dist_sync', what happens when a worker calls trainer.step?", [
            right("It pushes its gradients to the servers and pulls the new weights",
                  "trainer.step sends every parameter's gradient to the servers (kv.push) "
                  "and fetches the updated weights (kv.pull)."),
            right("The optimizer runs on the servers, which got it pickled from the "
                  "workers",
                  "With a distributed kvstore MXNet pickles the optimizer and sends it to "
                  "the servers, where the weights live; that is why an optimizer for it "
                  "must be picklable."),
            wrong("The scheduler adds the gradients and passes the sum on to the servers",
                  "The scheduler only lets the processes find each other (and runs the "
                  "barriers); gradients travel between workers and servers directly."),
            wrong("Every worker sends its gradient to every other worker",
                  "That is an allreduce, without any server. With a parameter server, "
                  "workers talk to the servers, never to each other."),
        ]),
    Question(
        "A worker process dies in the middle of dist_sync training. Without a launcher "
        "that watches the processes, what happens?", [
            right("The other workers wait in pull forever",
                  "A synchronous server answers a pull of step t only once every worker's "
                  "push of step t has arrived; the dead worker's never will."),
            wrong("The servers carry on with the remaining workers",
                  "A synchronous server counts pushes per step and does not know that a "
                  "worker is gone: ps-lite has no failure detection by default."),
            wrong("The scheduler restarts the worker from the last checkpoint",
                  "Nothing in ps-lite restarts workers or writes checkpoints; that would be "
                  "the job of a launcher or of your training script."),
            right("The servers wait forever for the dead worker's gradient",
                  "The sum of that step is never complete, so the update never happens. "
                  "That is why every wait in tutorial.parallel.ps.cluster has a deadline "
                  "and a failure stops every process with a clear error."),
        ]),
    Question(
        "What changes from dist_sync to dist_async?", [
            right("The server applies each worker's gradient as soon as it arrives",
                  "No clock any more: every push is an update, W updates per step."),
            right("Workers may compute gradients on weights that others already changed",
                  "Between a worker's pull and its push the others may update: its "
                  "gradient is stale when it lands (notebook 09 measures how stale)."),
            wrong("Two runs of the same job give the same weights",
                  "Which push reaches the server first depends on the operating system's "
                  "scheduling, so the same job generally ends with different weights: "
                  "'harder to debug', as the course notes put it."),
            right("A slow worker no longer holds the others back",
                  "Nobody waits: the deck's 'asynchronous: efficient for high time "
                  "dispersion'. Stale gradients and irreproducible runs are the price."),
        ]),
])
