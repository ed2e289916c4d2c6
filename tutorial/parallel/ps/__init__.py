"""A real parameter server: MXNet's ps-lite kvstores on a cluster of local processes.

- ``cluster``    launch a scheduler, servers and workers on 127.0.0.1; deadlines, clean stops
- ``ports``      the scheduler's port: free, and used by one cluster at a time
- ``rundir``     a cluster's folder of logs and results, kept only after a failed run
- ``diagnosis``  what went wrong (which process, how, after which step), in words
- ``worker``     the worker process (``python -m tutorial.parallel.ps.worker``)
- ``digits_job`` what each worker trains: an MLP on the 8x8 digits, its shard of each batch
- ``train``      run the job on a cluster, or in one process for comparison
- ``compressed``   dist_sync with 2-bit compressed pushes, and its twin in one process
- ``push_pull``    the trainer that pushes 2-bit compressed gradients and pulls weights
"""
