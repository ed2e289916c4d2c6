# Two commands: `make lab` opens the course, `make test` checks it.
# Both create .venv on first use and re-install only when pyproject.toml changes.

# The course runs on Python 3.10 to 3.14 (README, "Two commands"; tutorial/install/pins.py):
# the machine's python3 when it is one of them, else the first of python3.12, 3.11, 3.13,
# 3.10, 3.14 that runs.
SUPPORTED := (3, 10) <= sys.version_info[:2] <= (3, 14)
PYTHON ?= $(or $(shell for p in python3 python3.12 python3.11 python3.13 python3.10 python3.14; do \
            $$p -c 'import sys; sys.exit(not ($(SUPPORTED)))' >/dev/null 2>&1 \
            && { echo $$p; break; }; done),python3)
# The interpreter itself: $(PYTHON) if it runs, else pyenv's copy of that name (pyenv's shim
# refuses versions that are installed but not selected).
PYTHON_EXE := $(shell $(PYTHON) --version >/dev/null 2>&1 && echo $(PYTHON) || \
                ls -d $$(pyenv root 2>/dev/null)/versions/*/bin/$(PYTHON) 2>/dev/null | tail -1)
# A Python named on the command line gets its own environment (make test PYTHON=python3.12),
# and so does an MXNet that is already installed (MXNET=preinstalled, README "GPU notes").
VENV   := $(if $(filter preinstalled,$(MXNET)),.venv-preinstalled,$(if $(filter command \
            line,$(origin PYTHON)),.venv-$(notdir $(PYTHON)),.venv))
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export PIP_DISABLE_PIP_VERSION_CHECK := 1

# Which MXNet build .venv holds: the GPU build (mxnet-cu117 and the CUDA 11 libraries) when
# nvidia-smi lists a GPU, else the CPU build; `make lab GPU=1` or `GPU=0` decides instead.
# The stamp records the build it installed, so a different one re-installs (stamps written
# before it recorded anything are CPU installs).
BUILD     := $(if $(filter preinstalled,$(MXNET)),preinstalled,$(shell GPU='$(GPU)' \
             $(PYTHON_EXE) -m tutorial.install.mxnet_build want))
INSTALLED := $(or $(shell cat $(STAMP) 2>/dev/null),cpu)

.PHONY: setup horovod lab slides slides-html unit nbval nbval-alt test test-numerics test-full test-seeds test-arm64 test-debian-testing execute-notebooks bench selfcheck clean-venv help FORCE

help:
	@echo "make lab                open the course in JupyterLab (127.0.0.1, token on)"
	@echo "make lab GPU=1 / GPU=0  GPU (mxnet-cu117) or CPU build of MXNet; unset: nvidia-smi decides"
	@echo "make lab MXNET=preinstalled  keep the MXNet this python already has (NVIDIA's container)"
	@echo "make slides             open the instructor's deck (slides/) in JupyterLab; Alt+R presents"
	@echo "make slides-html        the deck as a static page for a room without kernel or network"
	@echo "                        (build/slides/workshop.html)"
	@echo "make test               unit tests, doctests and nbval over every notebook (fast mode)"
	@echo "make nbval-alt          nbval under a second numeric configuration (CI runs it)"
	@echo "make test-numerics      nbval under a third numeric configuration"
	@echo "make test-full          every notebook and the deck at full size in a fresh kernel (about"
	@echo "                        15 min on 2 cores); fails on a check printing False or an error;"
	@echo "                        writes the times into README.md's course map. Run it before"
	@echo "                        resolving an issue that changes a notebook"
	@echo "make test-seeds         every notebook and the deck in fast mode under TUTORIAL_SEED=1, 2, 3"
	@echo "                        (SEEDS=\"4 5\" for others); fails on a check printing False or an error"
	@echo "make unit               unit tests and doctests only"
	@echo "make horovod            build (once, then from its cached wheel) and install Horovod"
	@echo "make selfcheck          check this machine: versions, devices, one real training run"
	@echo "make test-arm64         set-up, selfcheck and a notebook in an emulated arm64 Debian (root)"
	@echo "make test-debian-testing  make test as a learner runs it on Debian testing, whose python3"
	@echo "                        is 3.14, in a chroot made with debootstrap (root; about 30 min)"
	@echo "make execute-notebooks  re-run every notebook in fast mode and store its outputs"
	@echo "make bench              run the benchmarks (ratios against MXNet in the same process)"

$(STAMP): pyproject.toml $(if $(filter $(BUILD),$(INSTALLED)),,FORCE)
	@test -n "$(BUILD)" || { GPU='$(GPU)' $(PYTHON_EXE) -m tutorial.install.mxnet_build want; exit 1; }
	@test -n "$(PYTHON_EXE)" || { echo "$(PYTHON) not found: install Python 3.12 (or 3.10 to 3.14), or name one with make PYTHON=..."; exit 1; }
	@$(PYTHON_EXE) -c "import sys; v = sys.version_info[:2]; sys.exit(0 if $(SUPPORTED) else \
	  'the course runs on Python 3.10 to 3.14 (MXNet 1.9.1 with numpy 1.26 up to 3.12, with numpy 2 from 3.13), ' \
	  'but $(PYTHON) is %d.%d. Install Python 3.12, then run: make PYTHON=python3.12 $(MAKECMDGOALS)' % v)"
	@test -x $(BIN)/python || $(PYTHON_EXE) -m venv $(VENV)
	$(if $(filter preinstalled,$(MXNET)),$(PYTHON_EXE) -m tutorial.install.mxnet_build see-packages $(VENV))
	$(BIN)/python -m tutorial.install.mxnet_build install $(or $(BUILD),unknown)
	$(BIN)/python -m tutorial.install.horovod_build $(if $(filter 0,$(HOROVOD)),skip,install $(or $(BUILD),unknown))
	@echo $(BUILD) > $(STAMP)

# The offline deck's scripts (reveal.js, require.js, the widget renderer, MathJax): npm
# tarballs pinned by version and sha256 in tutorial/deck/assets.py, fetched once after the
# environment is installed, as pip fetches wheels. Nothing downloads after this step.
OFFLINE := $(VENV)/share/tutorial-offline/.fetched

$(OFFLINE): $(STAMP) tutorial/deck/assets.py
	$(BIN)/python -m tutorial.deck.assets fetch
	@touch $@

lab: $(STAMP)
	$(BIN)/python -m tutorial.jupyter.lab

slides: $(STAMP)
	$(BIN)/python -m tutorial.jupyter.lab slides

# The deck with its committed outputs: reveal.js and the widgets' saved state, all local.
slides-html: $(OFFLINE)
	$(BIN)/python -m tutorial.deck.export slides/workshop.ipynb build/slides

# Horovod again, after fixing what its first build said (it never stops the set-up).
horovod: $(STAMP)
	$(BIN)/python -m tutorial.install.horovod_build install $(BUILD)

selfcheck: $(STAMP)
	$(BIN)/python -m tutorial.check

# Numeric configurations other than the machine's own, chosen per machine (uname -m) in
# tutorial/install/arch.py: on x86-64, NUMERIC_ALT is oneDNN off, OpenBLAS's Sandybridge kernels and
# one thread, NUMERIC_THIRD oneDNN's AVX2 kernels; on arm64, oneDNN off and one thread, then
# also float64 accumulation. Each changes MXNet's numerics (tests/README.md and
# tests/notebooks/test_numeric_configs.py); the notebooks' compared outputs must not move.
NUMERIC_ALT   := $(shell $(PYTHON_EXE) -m tutorial.install.arch numeric alt)
NUMERIC_THIRD := $(shell $(PYTHON_EXE) -m tutorial.install.arch numeric third)
# Two notebooks at a time, each whole in one worker (pytest-xdist, --dist loadfile): a
# notebook's cells share one kernel and run in order. Halves nbval's wall time on two cores.
NBVAL := TUTORIAL_FAST=1 $(BIN)/python -m pytest -q --nbval notebooks slides \
         --sanitize-with tests/nbval_sanitize.cfg -n 2 --dist loadfile

# Unit tests and doctests, two at a time (pytest-xdist: most of their time is spent waiting
# on subprocesses, clusters and browsers), each test file whole in one worker (--dist
# loadfile), so a module's JupyterLab and browser are started once. (--dist loadgroup with
# xdist_group marks did not group under pytest 9: each test ran alone, and a module-scoped
# browser fixture was set up in both workers.) CI runs them under every supported Python.
# UNIT_SKIP names more markers to leave out (.ci/run: UNIT_SKIP=browser under 3.10, 3.12 and
# 3.13); the install tests stay out either way (a second -m would replace pyproject's, not
# add to it: a UNIT_ARGS='-m "not browser"' once ran them). UNIT_TESTS: which tests (.ci/run
# names a part of them under 3.10 and 3.12); the doctests of every module run either way.
# UNIT_ARGS adds pytest arguments.
UNIT_SKIP ?=
UNIT_TESTS ?= tests
UNIT_MARKS := not install$(foreach marker,$(UNIT_SKIP), and not $(marker))
UNIT := TUTORIAL_FAST=1 $(BIN)/python -m pytest -q -rs -n 2 --dist loadfile -m "$(UNIT_MARKS)" $(UNIT_TESTS) --doctest-modules tutorial $(UNIT_ARGS)
unit: $(STAMP) $(OFFLINE)
	$(UNIT)

# nbval over every notebook and the slides, in fast mode, as the machine is.
nbval: $(STAMP) $(OFFLINE)
	$(NBVAL)

# The same under NUMERIC_ALT: the stored outputs must not depend on BLAS kernels or threads.
nbval-alt: $(STAMP) $(OFFLINE)
	@echo "== nbval again under $(NUMERIC_ALT)"
	env $(NUMERIC_ALT) $(NBVAL)

# Unit tests and doctests, then nbval as the machine is. CI adds nbval under NUMERIC_ALT
# (its Python 3.13 pass): a learner's machine has one numeric configuration, its own.
test: unit nbval

# The environment and the offline deck's scripts, nothing run (.ci/run prepares the next
# Python's environment while the tests of the first one run).
setup: $(STAMP) $(OFFLINE)

# A third numeric configuration, for changes that touch many notebooks.
test-numerics: $(STAMP)
	env $(NUMERIC_THIRD) $(NBVAL)

# Run without saving (tutorial/jupyter/notebook_runs.py): at full size, timed into README.md's course
# map; and in fast mode with every seed shifted (TUTORIAL_SEED, tutorial/seeds.py).
COURSE := notebooks/*.ipynb slides/*.ipynb
SEEDS  ?= 1 2 3

test-full: $(STAMP)
	$(BIN)/python -m tutorial.jupyter.notebook_runs full $(COURSE)

test-seeds: $(STAMP)
	$(BIN)/python -m tutorial.jupyter.notebook_runs seeds $(COURSE) --seeds $(SEEDS)

# The committed outputs come from this run (see tests/README.md).
execute-notebooks: $(STAMP)
	TUTORIAL_FAST=1 $(BIN)/python -m tutorial.jupyter.notebooks execute notebooks/*.ipynb slides/*.ipynb

# arm64 Linux, emulated here: the real set-up, selfcheck and one notebook under nbval in an
# arm64 Debian 12 made with debootstrap and qemu-user-static (tools/arm64.sh; needs root).
test-arm64:
	bash tools/arm64.sh

# Debian testing, whose python3 is 3.14: `make test` as a learner runs it there, in a fresh
# clone inside an amd64 Debian testing made with debootstrap (tools/debian_testing.sh;
# needs root). Shares its chroot helpers with test-arm64 (tools/chroot_lib.sh).
test-debian-testing:
	bash tools/debian_testing.sh

bench: $(STAMP)
	@for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean-venv:
	rm -rf $(VENV)
