"""``python -m tutorial.check`` (``make selfcheck``): the setup checks, then the learner's
progress in the exercises. The exit status comes from the setup checks alone."""

import sys

from tutorial.check import exercise_progress
from tutorial.check.environment import report, run_checks

results = run_checks()
print(report(results))
print(f"\nYour exercises, read from {exercise_progress.NOTEBOOKS} (the notebooks are not "
      f"changed):")
print(exercise_progress.report(exercise_progress.progress()))
sys.exit(0 if all(r.ok for r in results) else 1)
