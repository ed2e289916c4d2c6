"""One Horovod rank: ``python -m tutorial.parallel.hvd.worker JOB_JSON``.

Run by :func:`tutorial.parallel.hvd.launcher.run_horovod` with the HOROVOD_* variables
set. Trains :class:`~tutorial.parallel.ps.digits_job.DigitsJob` with Horovod
(``job.train``) and writes ``rank{r}.json`` and ``rank{r}.npz`` (the final weights) into
``TUTORIAL_HVD_OUT_DIR``; a rank on another host prints them instead
(``tutorial.parallel.hosts.results.deliver``). A rank that fails prints its traceback and
leaves at once (``results.run_or_exit``): a normal exit would run Horovod's shutdown, which
waits for the others.
"""

import os
import sys
import time
from pathlib import Path

from tutorial.parallel.hosts import results


def main(argv):
    (job_json,) = argv
    start = time.perf_counter()
    out_dir = Path(os.environ.get("TUTORIAL_HVD_OUT_DIR", "."))
    from tutorial.parallel.hvd.job import train
    from tutorial.parallel.ps.digits_job import DigitsJob

    out = train(DigitsJob.from_json(job_json), log=lambda line: print(line, flush=True))
    rank, params = out["rank"], out.pop("params")
    out.update(seconds=time.perf_counter() - start)
    results.deliver(out, params, out_dir, f"rank{rank}")
    print(f"rank {rank}: done, accuracy {out['accuracy']:.3f}", flush=True)


if __name__ == "__main__":
    results.run_or_exit(main, sys.argv[1:])
