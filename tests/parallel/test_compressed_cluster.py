"""dist_sync with 2-bit compressed pushes on a real ps-lite cluster equals the in-process
twin (the from-scratch quantiser on devices), and differs from uncompressed dist_sync.
Runs in a child Python with a timeout, like tests/parallel/test_cluster.py."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow     # starts real processes

REPO = Path(__file__).resolve().parents[2]


def test_compressed_dist_sync_equals_the_from_scratch_twin(tmp_path):
    code = textwrap.dedent("""
        import json
        from tutorial.parallel.ps.compressed import train_twin
        from tutorial.parallel.ps.digits_job import DigitsJob
        from tutorial.parallel.ps.train import max_relative_difference, train_on_cluster
        job = DigitsJob(steps=8, batch_per_worker=16, hidden=(32,), compression_threshold=0.5)
        runs = train_on_cluster(job, "dist_sync", num_workers=2, timeout=80)
        plain = DigitsJob(steps=8, batch_per_worker=16, hidden=(32,))
        plain_runs = train_on_cluster(plain, "dist_sync", num_workers=2, timeout=80)
        twin = train_twin(job, num_workers=2)
        print(json.dumps({
            "between_workers": max_relative_difference(runs[1].params, runs[0].params),
            "vs_twin": max_relative_difference(runs[0].params, twin),
            "vs_uncompressed": max_relative_difference(runs[0].params, plain_runs[0].params)}))
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=150,
                          env=dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(tmp_path)))
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["between_workers"] == 0.0
    assert out["vs_twin"] < 1e-5
    assert out["vs_uncompressed"] > 1e-3


def test_the_twin_needs_a_threshold():
    from tutorial.parallel.ps.compressed import train_twin
    from tutorial.parallel.ps.digits_job import DigitsJob
    with pytest.raises(ValueError, match="compression_threshold"):
        train_twin(DigitsJob(steps=1), num_workers=2)
