"""A worker's result, sent back through its log: another machine's files stay on it.

Both engines' worker processes (``ps/worker.py``, ``hvd/worker.py``) end the same way:
:func:`deliver` saves or prints the result, and :func:`run_or_exit` turns a failure into a
traceback and an immediate exit.

On one machine a worker writes ``worker{i}.json`` and ``worker{i}.npz`` (a Horovod rank
``rank{r}.*``) into the run folder. A worker on another host has no such folder, so it
prints the same result as one line, ``result-base64 {...}`` (the JSON with the weights'
``.npz`` in base64); the line comes back over ssh into its local log, and :func:`unpack`
writes the two files where a local worker would have, and takes the line out of the log.

>>> import numpy as np, tempfile, pathlib
>>> line = result_line({"rank": 1}, [np.arange(3.0)])
>>> with tempfile.TemporaryDirectory() as tmp:
...     where = pathlib.Path(tmp)
...     print(repr(unpack("step 1 loss 0.5\\n" + line + "\\n", where, "worker0")))
...     print(np.load(where / "worker0.npz")["arr_0"], (where / "worker0.json").read_text())
'step 1 loss 0.5\\n'
[0. 1. 2.] {"rank": 1}
"""

import base64
import io
import json
import os
import sys
import traceback

PREFIX = "result-base64 "
ENV = "TUTORIAL_PS_RESULT_TO_LOG"      # set for workers on other hosts


def result_line(out, params):
    """One line holding the JSON ``out`` and the arrays ``params`` (as ``np.savez`` does)."""
    import numpy as np
    buffer = io.BytesIO()
    np.savez(buffer, *params)
    return PREFIX + json.dumps({"out": out,
                                "npz": base64.b64encode(buffer.getvalue()).decode("ascii")})


def unpack(log, run_dir, stem):
    """Write ``{stem}.json`` and ``{stem}.npz`` from the log's result line; the log without it.

    ``stem``: ``worker{i}`` for a parameter-server worker, ``rank{r}`` for a Horovod rank.
    """
    lines = log.splitlines(keepends=True)
    found = [ln for ln in lines if ln.startswith(PREFIX)]
    if found:
        data = json.loads(found[-1][len(PREFIX):])
        (run_dir / f"{stem}.npz").write_bytes(base64.b64decode(data["npz"]))
        (run_dir / f"{stem}.json").write_text(json.dumps(data["out"]))
    return "".join(ln for ln in lines if not ln.startswith(PREFIX))


def deliver(out, params, out_dir, stem, env=None):
    """Save ``{stem}.json`` and ``{stem}.npz`` in ``out_dir``; on another host (``ENV`` set
    in ``env``), print them as one result line instead, for :func:`unpack`.

    >>> import numpy as np, tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     deliver({"rank": 0}, [np.ones(2)], pathlib.Path(tmp), "rank0", env={})
    ...     sorted(p.name for p in pathlib.Path(tmp).iterdir())
    ['rank0.json', 'rank0.npz']
    """
    env = os.environ if env is None else env
    if env.get(ENV):
        print(result_line(out, params), flush=True)
        return
    import numpy as np
    np.savez(out_dir / f"{stem}.npz", *params)
    (out_dir / f"{stem}.json").write_text(json.dumps(out))


def run_or_exit(main, argv, exit=os._exit):
    """Run a worker's ``main(argv)``; if it fails, print the traceback and leave at once.

    A failed worker leaves with ``os._exit(1)``: a normal exit would run the kvstore's
    destructor (ps-lite's shutdown barrier) or Horovod's shutdown, which wait for the other
    workers, so the failing process would hang instead of dying.
    """
    try:
        main(argv)
    except BaseException:                      # noqa: B902 - report, then leave at once
        traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        exit(1)
