import sys

from tutorial.check.environment import report, run_checks

results = run_checks()
print(report(results))
sys.exit(0 if all(r.ok for r in results) else 1)
