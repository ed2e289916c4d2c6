"""The course's environment: what ``make lab`` and ``make test`` install, and how.

Nothing here teaches distributed training; the notebooks import none of it. One idea per file:

- ``mxnet_build``  which MXNet goes into the virtual environment (the CPU build, the GPU
  build with its CUDA wheels, or an MXNet the interpreter already has) and installing it
  with the course's pins (``python -m tutorial.install.mxnet_build install cpu``)
- ``pins``         the pins of pyproject.toml, read without tomllib, with their environment
  markers evaluated for this Python (numpy 1.26 up to 3.12, numpy 2 from 3.13)
- ``numpy_compat`` what numpy 1.24 and 2.0 removed and MXNet 1.9.1 still reads, restored in
  every process of the environment (a ``.pth`` hook the set-up installs)
- ``preinstalled`` the course beside an MXNet the interpreter already has (NVIDIA's
  container: ``make lab MXNET=preinstalled``)
- ``arch``         what the set-up chooses by machine (x86-64 or arm64): GPU build, numeric
  configurations
- ``arm64_blas``   on arm64, point MXNet's wheel at the distribution's OpenBLAS in place of
  the Arm Performance Libraries it names
- ``wheel_cache``  wheels built from source once and kept outside ``.venv`` (Horovod)
- ``horovod_build`` build Horovod once per MXNet build and Python, install it from its
  cached wheel
- ``horovod_support`` where Horovod 0.28.1 can work (Python up to 3.13, GCC up to 12), and
  what to tell the learner where it cannot
"""
