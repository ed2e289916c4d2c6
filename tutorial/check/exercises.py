"""The course's exercises, one per notebook: the one list that names them.

Each entry says which notebook holds the exercise, the function the learner writes there
and the checker (in ``tutorial.check.<module>``) that judges it. The notebook's exercise
code cell defines that function, imports and calls that checker, and carries the cell
metadata ``{"tutorial": {"exercise": <function>}}``; ``tests/check/test_exercises.py`` holds
every notebook to this list and this list to the notebooks. The instructor's solutions
(``instructor/solutions.py``) use the same function names.

>>> [e.function for e in EXERCISES][:3]
['piecewise_constant_lr', 'clip_by_global_norm', 'adam_step']
>>> by_notebook("04_capacity").checker_name
'check_dropout'
"""

import dataclasses
import importlib

METADATA_KEY = "tutorial"      # cell.metadata["tutorial"]["exercise"] = the function's name


@dataclasses.dataclass(frozen=True)
class Exercise:
    notebook: str         # the notebook's file name without .ipynb
    function: str         # the function the learner defines
    module: str           # tutorial.check.<module> holds the checker
    checker_name: str

    @property
    def import_line(self):
        """The line with which the exercise cell imports its checker."""
        return f"from tutorial.check.{self.module} import {self.checker_name}"

    def checker(self):
        """The checking function (imported on demand: some checkers import MXNet)."""
        return getattr(importlib.import_module(f"tutorial.check.{self.module}"),
                       self.checker_name)


EXERCISES = (
    Exercise("01_sgd", "piecewise_constant_lr", "learning_rates", "check_piecewise_constant_lr"),
    Exercise("02_momentum", "clip_by_global_norm", "gradient_clipping",
             "check_clip_by_global_norm"),
    Exercise("03_adaptive", "adam_step", "optimizers", "check_adam"),
    Exercise("04_capacity", "dropout", "capacity", "check_dropout"),
    Exercise("05_data_parallel", "combine_gradients", "data_parallel", "check_combine_gradients"),
    Exercise("06_allreduce", "chain", "collectives", "check_chain"),
    Exercise("07_parameter_server", "step_batch", "distributed", "check_step_batch"),
    Exercise("08_large_batch", "trust_ratio", "large_batch", "check_trust_ratio"),
    Exercise("09_async_sgd", "staleness_lr", "distributed", "check_staleness_lr"),
    Exercise("10_model_parallel", "gpipe_schedule", "pipeline", "check_gpipe"),
    Exercise("11_large_batch_cnn", "sync_mean_var", "sync_batchnorm", "check_sync_mean_var"),
    Exercise("12_scaling_out", "post_local_schedule", "scaling_out",
             "check_post_local_schedule"),
    Exercise("13_memory", "zero_bytes", "memory", "check_zero_bytes"),
    Exercise("14_sequences_and_experts", "merge_partials", "sequence", "check_merge_partials"),
)


def by_notebook(stem):
    """The exercise of notebook ``stem`` (a ValueError naming the known ones otherwise)."""
    for exercise in EXERCISES:
        if exercise.notebook == stem:
            return exercise
    raise ValueError(f"no exercise is registered for notebook {stem!r}; the registered ones "
                     f"are {', '.join(e.notebook for e in EXERCISES)}")
