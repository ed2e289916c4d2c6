"""One right answer per exercise, for the instructor (learners open notebooks/, not this).

Each function has the name and signature of the function the learner writes in the
notebook that ``tutorial/check/exercises.py`` names; ``tests/check/test_solutions.py`` checks
that every one passes its checker. ``GIVEAWAYS`` lists, per exercise, text that states
its answer: no "Not yet" message and no notebook may contain it (compared without
spaces), which the tests check too.
"""

import numpy as np

from tutorial.parallel.collectives import Schedule, Step, Transfer


def piecewise_constant_lr(step, boundaries, values):                  # 01_sgd
    reached = sum(step >= b for b in boundaries)     # a boundary step takes the new value
    return values[reached]


def clip_by_global_norm(grads, max_norm):                             # 02_momentum
    norm = np.sqrt(sum(np.sum(g ** 2) for g in grads))
    if norm <= max_norm:
        return [g.copy() for g in grads]
    return [g * (max_norm / norm) for g in grads]                # new arrays, input kept


def adam_step(w, g, m, v, t, lr, beta1, beta2, eps):                  # 03_adaptive
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g ** 2
    m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
    return w - lr * m_hat / (np.sqrt(v_hat) + eps), m, v


def dropout(x, rate, rng):                                            # 04_capacity
    keep = rng.uniform(size=x.shape) >= rate
    return x * keep / (1 - rate)


def combine_gradients(shard_means, shard_sizes):                      # 05_data_parallel
    shard_sums = [n * np.asarray(g) for g, n in zip(shard_means, shard_sizes)]
    return sum(shard_sums) / sum(shard_sizes)


def chain(num_nodes, length, itemsize=4):                             # 06_allreduce
    nbytes = length * itemsize
    steps = []
    for i in range(num_nodes - 1):          # reduce along the chain
        steps.append(Step("reduce", (Transfer(i, i + 1, 0, 0, length, nbytes, "add"),)))
    for i in range(num_nodes - 1, 0, -1):   # the total travels back, by copies
        steps.append(Step("broadcast", (Transfer(i, i - 1, 0, 0, length, nbytes, "copy"),)))
    return Schedule("chain", num_nodes, length, itemsize, ((0, length),), tuple(steps))


def step_batch(num_workers, batch_per_worker):                        # 07_parameter_server
    return num_workers * batch_per_worker


def trust_ratio(w, g, eta, wd, name):                                 # 08_large_batch
    w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g)
    if name.endswith(("bias", "gamma", "beta")) or w_norm == 0 or g_norm == 0:
        return 1.0
    return eta * w_norm / (g_norm + wd * w_norm)


def staleness_lr(lr, staleness):                                      # 09_async_sgd
    return lr / max(1, staleness)


def gpipe_schedule(stages, microbatches):                             # 10_model_parallel
    p, m = stages, microbatches
    tasks = [(s + i, s, i, "F") for s in range(p) for i in range(m)]   # forwards: a wave
    tasks += [(m + p - 1 + (p - 1 - s) + (m - 1 - i), s, i, "B")     # backwards: reversed
              for s in range(p) for i in range(m)]
    return tasks


def sync_mean_var(means, variances, counts):                          # 11_large_batch_cnn
    n = sum(counts)
    mean = sum(c * m for m, c in zip(means, counts)) / n
    second = sum(c * (v + m ** 2) for m, v, c in zip(means, variances, counts)) / n
    return mean, second - mean ** 2                  # E[x^2] - E[x]^2, shards by count


def post_local_schedule(steps, period, switch):                      # 12_scaling_out
    return [t for t in range(1, steps + 1)
            if t <= switch or (t - switch) % period == 0 or t == steps]


def zero_bytes(parameters, devices, stage, copies):                  # 13_memory
    whole = 4 * parameters
    weights = whole / devices if stage >= 3 else whole
    gradients = whole / devices if stage >= 2 else whole
    state = copies * whole / devices if stage >= 1 else copies * whole
    return weights, gradients, state


def merge_partials(a, b):                                            # 14_sequences_and_experts
    (m_a, l_a, o_a), (m_b, l_b, o_b) = a, b
    m = np.maximum(m_a, m_b)                        # the larger maximum: both factors <= 1
    scale_a, scale_b = np.exp(m_a - m), np.exp(m_b - m)
    return m, l_a * scale_a + l_b * scale_b, o_a * scale_a[:, None] + o_b * scale_b[:, None]


GIVEAWAYS = {
    "piecewise_constant_lr": ("step>=bforbinboundaries", "bisect_right(boundaries,step)",
                              "values[reached]"),
    "clip_by_global_norm": ("max_norm/norm", "min(1,max_norm/", "min(1.0,max_norm/",
                            "ifnorm<=max_norm", "ifnorm>max_norm"),
    "adam_step": ("lr*m_hat/(np.sqrt(v_hat)+eps)", "lr*m_hat/(sqrt(v_hat)+eps)"),
    "dropout": ("uniform(size=x.shape)>=rate", "x*keep/(1-rate)", "keep/(1.0-rate)"),
    "combine_gradients": ("n*np.asarray(g)", "sum(shard_sums)/sum(shard_sizes)"),
    "chain": ("Transfer(i,i-1,0,0,length,nbytes,\"copy\")", "range(num_nodes-1,0,-1)"),
    "step_batch": ("step(2*b)", "step(W*b)", "totalbatchW*b", "returnnum_workers*"),
    "trust_ratio": ("eta*w_norm/(g_norm+wd*w_norm)",),
    "staleness_lr": ("max(1,staleness)", "max(1,tau)", "freshonestoo"),
    "gpipe_schedule": ("(s+i,s,i,\"F\")", "m+p-1+(p-1-s)+(m-1-i)"),
    "sync_mean_var": ("c*(v+m**2)", "second-mean**2", "(v+m**2)form,v,c"),
    "post_local_schedule": ("(t-switch)%period==0", "t<=switchor(t-", "ift<=switch"),
    "zero_bytes": ("whole/devicesifstage>=3", "copies*whole/devicesifstage>=1"),
    "merge_partials": ("np.exp(m_a-m)", "np.exp(m_b-m)", "l_a*scale_a+l_b*scale_b",
                       "o_a*scale_a[:,None]"),
}
