"""The worker process: ``python -m tutorial.parallel.ps.worker KVSTORE JOB_JSON``.

Run by :func:`tutorial.parallel.ps.cluster.run_cluster` with the ``DMLC_*`` variables
set. It creates the distributed kvstore (this is where ps-lite connects to the
scheduler), trains :class:`~tutorial.parallel.ps.digits_job.DigitsJob` as worker
``kv.rank``, and writes ``worker{i}.json`` and ``worker{i}.npz`` (the final weights)
into ``TUTORIAL_PS_OUT_DIR``; a worker on another host prints them as one line instead
(``tutorial.parallel.hosts.results.deliver``).

A worker that fails prints its traceback and leaves at once (``results.run_or_exit``): a
normal exit would run the kvstore's destructor, which waits in ps-lite's shutdown barrier
for the other workers, so the failing process would hang instead of dying.
"""

import os
import sys
import time
from pathlib import Path

from tutorial.parallel.hosts import results


def main(argv):
    kind, job_json = argv
    index = int(os.environ.get("TUTORIAL_PS_WORKER_INDEX", "0"))
    out_dir = Path(os.environ.get("TUTORIAL_PS_OUT_DIR", "."))
    start = time.perf_counter()
    import mxnet as mx

    from tutorial.parallel.ps.digits_job import DigitsJob, train

    job = DigitsJob.from_json(job_json)
    kv = mx.kv.create(kind)
    print(f"worker {index}: kvstore {kv.type}, rank {kv.rank} of {kv.num_workers}", flush=True)
    out = train(job, kv, kv.rank, kv.num_workers, worker_index=index,
                log=lambda line: print(line, flush=True))
    params = out.pop("params")
    out.update(index=index, kvstore=kind, seconds=time.perf_counter() - start)
    results.deliver(out, params, out_dir, f"worker{index}")
    print(f"worker {index}: done, accuracy {out['accuracy']:.3f}", flush=True)


if __name__ == "__main__":
    results.run_or_exit(main, sys.argv[1:])
