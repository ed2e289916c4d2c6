"""Horovod's ring allreduce across processes: local ranks launched from a notebook.

- ``rendezvous``  what ``horovodrun --gloo`` does: the rendezvous, the ranks' slots and
                  HOROVOD_* variables, and the equivalent horovodrun command line
- ``launcher``    start N ranks on 127.0.0.1; deadlines, clean stops, a dead rank named
- ``job``         the parameter server's digits job with ``hvd.DistributedTrainer``
- ``worker``      one rank (``python -m tutorial.parallel.hvd.worker``)
- ``train``       run the job on Horovod ranks; the results read like ``dist_sync``'s
- ``side_by_side`` the same job on ps-lite, Horovod's ring and the course's own ring:
                  time per step, bytes per step and per process

Horovod is optional (``tutorial/install/horovod_build.py`` builds it): without it, everything
here but ``train`` and ``side_by_side``'s Horovod row imports and explains the fix.
"""
