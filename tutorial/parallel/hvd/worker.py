"""One Horovod rank: ``python -m tutorial.parallel.hvd.worker JOB_JSON``.

Run by :func:`tutorial.parallel.hvd.launcher.run_horovod` with the HOROVOD_* variables
set. Trains :class:`~tutorial.parallel.ps.digits_job.DigitsJob` with Horovod
(``job.train``) and writes ``rank{r}.json`` and ``rank{r}.npz`` (the final weights) into
``TUTORIAL_HVD_OUT_DIR``; a rank on another host prints them instead
(``tutorial.parallel.hosts.results``). A rank that fails prints its traceback and leaves
at once with ``os._exit(1)``: a normal exit would run Horovod's shutdown, which waits for the others.
"""

import json
import os
import sys
import time
import traceback
from pathlib import Path

from tutorial.parallel.hosts import results


def main(argv):
    (job_json,) = argv
    start = time.perf_counter()
    out_dir = Path(os.environ.get("TUTORIAL_HVD_OUT_DIR", "."))
    import numpy as np

    from tutorial.parallel.hvd.job import train
    from tutorial.parallel.ps.digits_job import DigitsJob

    out = train(DigitsJob.from_json(job_json), log=lambda line: print(line, flush=True))
    rank, params = out["rank"], out.pop("params")
    out.update(seconds=time.perf_counter() - start)
    if os.environ.get(results.ENV):             # a rank on another host: through its log
        print(results.result_line(out, params), flush=True)
    else:
        np.savez(out_dir / f"rank{rank}.npz", *params)
        (out_dir / f"rank{rank}.json").write_text(json.dumps(out))
    print(f"rank {rank}: done, accuracy {out['accuracy']:.3f}", flush=True)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BaseException:                      # noqa: B902 - report, then leave at once
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)
