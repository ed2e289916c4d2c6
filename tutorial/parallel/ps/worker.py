"""The worker process: ``python -m tutorial.parallel.ps.worker KVSTORE JOB_JSON``.

Run by :func:`tutorial.parallel.ps.cluster.run_cluster` with the ``DMLC_*`` variables
set. It creates the distributed kvstore (this is where ps-lite connects to the
scheduler), trains :class:`~tutorial.parallel.ps.digits_job.DigitsJob` as worker
``kv.rank``, and writes ``worker{i}.json`` and ``worker{i}.npz`` (the final weights)
into ``TUTORIAL_PS_OUT_DIR``; a worker on another host prints them as one line instead
(``tutorial.parallel.hosts.results``).

A worker that fails leaves with ``os._exit(1)`` after printing the traceback: a normal
exit would run the kvstore's destructor, which waits in ps-lite's shutdown barrier for
the other workers, so the failing process would hang instead of dying.
"""

import json
import os
import sys
import time
import traceback
from pathlib import Path

from tutorial.parallel.hosts import results


def main(argv):
    kind, job_json = argv
    index = int(os.environ.get("TUTORIAL_PS_WORKER_INDEX", "0"))
    out_dir = Path(os.environ.get("TUTORIAL_PS_OUT_DIR", "."))
    start = time.perf_counter()
    import mxnet as mx
    import numpy as np

    from tutorial.parallel.ps.digits_job import DigitsJob, train

    job = DigitsJob.from_json(job_json)
    kv = mx.kv.create(kind)
    print(f"worker {index}: kvstore {kv.type}, rank {kv.rank} of {kv.num_workers}", flush=True)
    out = train(job, kv, kv.rank, kv.num_workers, worker_index=index,
                log=lambda line: print(line, flush=True))
    params = out.pop("params")
    out.update(index=index, kvstore=kind, seconds=time.perf_counter() - start)
    if os.environ.get(results.ENV):
        print(results.result_line(out, params), flush=True)
    else:
        np.savez(out_dir / f"worker{index}.npz", *params)
        (out_dir / f"worker{index}.json").write_text(json.dumps(out))
    print(f"worker {index}: done, accuracy {out['accuracy']:.3f}", flush=True)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BaseException:                      # noqa: B902 - report, then leave at once
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
