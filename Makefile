# Two commands do the whole set-up on a fresh machine: `make book` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Pyodide, for the book's "Explain an error" page (fetched from npm by `make book`)
PYODIDE := tools/pyodide/node_modules/.package-lock.json
# The execution environment (executed outputs must not depend on timing or hash order) and
# the nbval options are written once, in ice_teach/settings.py, which the tests and the
# grader read too. Read with the plain $(PYTHON), standard library only: before the venv exists.
EXECUTION_ENV := $(shell $(PYTHON) -m ice_teach settings env)
NBVAL := $(shell $(PYTHON) -m ice_teach settings nbval)
ifeq ($(NBVAL),)
$(error `$(PYTHON) -m ice_teach settings nbval` printed nothing: make needs Python 3.9 or newer as $(PYTHON))
endif
$(foreach setting,$(EXECUTION_ENV),$(eval export $(setting)))
JB_STRICT := -W --keep-going
# The kernel stages run a kernel per core (pytest-xdist; TEST_JOBS, at most 8 by default, so
# that the kernels' memory stays within a laptop's), each whole test file or notebook in
# one worker (nbval's cells share a kernel; a module's fixtures are built once), the
# longest first by the seconds each took last time, each kernel on one thread, so that
# the kernels do not fight over the cores: --dist loadfile, and
# tests/support/schedule_plugin.py sorts the files by tests/durations.json, in which
# order --no-loadscope-reorder keeps them.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n > 8 ? 8 : n < 2 ? 2 : n )))
XDIST := -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder -p schedule_plugin
ONE_THREAD := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Every pytest stage of `make test` ends with its slowest tests.
DURATIONS := --durations=12 --durations-min=3
# The portability pass: generic (non-vectorised) ATen kernels, one thread, MKL's reproducible
# code path. Other CPUs round differently; committed outputs must hold under both settings.
# Why these three: CONTRIBUTING.md, "Outputs that hold on any CPU".
PORTABLE_ENV := ATEN_CPU_CAPABILITY=default $(ONE_THREAD) MKL_CBWR=COMPATIBLE
# The book's status page (book/status.md) reads reference/status.json: each nbval run of
# `make test` and `make test-nb` records there what every notebook did
# (tests/support/status_plugin.py; pass 1 = this machine's kernels, pass 2 = bare copies
# under portable kernels). Commit it with the notebooks it describes:
# tests/teach/test_status.py fails when it is older than they are. The two plugins are
# loaded with -p before pytest reads its pythonpath setting: PYTHONPATH finds them.
SUPPORT := $(CURDIR)/tests/support
STATUS := ICE_STATUS_FILE=$(CURDIR)/reference/status.json PYTHONPATH=$(SUPPORT)
# Where `make test` notes how long each stage took; printed at its end.
STAGES := $(CURDIR)/_build/test-stages.txt
# $(call STAGE,name,commands): run a stage of `make test` and note its time.
# A failed stage does not stop the later ones (one run shows every failure); `make test`
# fails at its end if any stage did.
define STAGE
start=$$(date +%s); ( $(2) ); status=$$?; \
	echo "$(1): $$(( $$(date +%s) - start )) s$$( [ $$status = 0 ] || echo ", FAILED")" \
	>> $(STAGES); true
endef
# The portability pass also runs on bare copies: each notebook alone in a folder of its own
# under a fresh temporary folder (ice-teach bare-copies: notebooks.bare_copies), as on Colab, so a notebook that
# reads a file of the repository fails. $(1): notebooks or folders (default: book and labs).
define BARE_PASS
bare=$$(mktemp -d -t ice-bare-XXXXXX) && $(PY) -m ice_teach bare-copies $$bare $(1) >/dev/null \
	&& cd $$bare && env $(PORTABLE_ENV) $(STATUS) ICE_STATUS_PASS=2 $(CURDIR)/$(PY) -m pytest . \
	-p no:cacheprovider -p status_plugin $(NBVAL) $(XDIST) $(2); status=$$?; rm -rf $$bare; \
	exit $$status
endef

.PHONY: venv book book-strict test test-unit test-kernel test-nb test-portable test-compat test-browser \
	test-colab test-start-methods test-python-support \
	execute lab doctor clean student grade

venv: $(STAMP)

# The venv is (re)built from the CI pins whenever pyproject.toml or the pins change.
$(STAMP): pyproject.toml constraints/ci.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints/ci.txt -e ".[book,test,lab,export,browser,teach]"
	touch $@

book: $(STAMP) $(PYODIDE)
	$(VENV)/bin/jupyter-book build . --builder html
	$(PY) tools/pyodide/build_site.py _build/html
	@echo "HTML book: _build/html/index.html"

book-strict: $(STAMP) $(PYODIDE)
	$(VENV)/bin/jupyter-book build . --builder html $(JB_STRICT)
	$(PY) tools/pyodide/build_site.py _build/html

# Pyodide for the "Explain an error" page (book/explain-online.md), the version pinned in
# tools/pyodide/package-lock.json, from the npm registry; never committed.
$(PYODIDE): tools/pyodide/package.json tools/pyodide/package-lock.json
	npm ci --prefix tools/pyodide --no-audit --no-fund

# Stage 1: the strict book build. Stage 2: unit tests (no kernels, no child processes);
# the two run side by side, one core each (neither reads what the other writes).
# Stage 3: the tests that start kernels and processes, and strict nbval over every
# notebook, this machine's CPU kernels. Stage 4: strict nbval over every notebook again,
# each a bare copy alone in a temporary folder, under the portable kernel settings.
# Stage 5: reference/status.json describes every notebook as it is now (stage 2 skips that
# test, since stages 3 and 4 rewrite the file; `make test-unit` runs it).
# Then the time of each stage (every pytest stage also prints its slowest tests).
test: $(STAMP)
	@mkdir -p _build && rm -f $(STAGES)
	@echo "== make test, stages 1 and 2 of 5, side by side (one core each): the strict book"
	@echo "   build, and the unit tests (no kernels, no child processes); the build's log follows"
	@( $(call STAGE,1 strict book build,$(MAKE) --no-print-directory book-strict \
		> _build/test-stage-1.log 2>&1) ) & \
	$(call STAGE,2 unit tests,env $(STATUS) $(PY) -m pytest tests -m "not kernel" -q $(DURATIONS)); \
	wait; echo "== make test, stage 1 of 5: strict book build (its log)"; \
	cat _build/test-stage-1.log
	@echo "== make test, stage 3 of 5: kernel tests and strict nbval, this machine's CPU"
	@echo "   kernels, $(TEST_JOBS) at a time, one thread each"
	@$(call STAGE,3 kernel tests and nbval,env $(ONE_THREAD) $(STATUS) ICE_STATUS_PASS=1 \
		$(PY) -m pytest -p status_plugin tests book labs -m kernel $(NBVAL) $(XDIST) $(DURATIONS))
	@echo "== make test, stage 4 of 5: strict nbval on bare copies (each notebook alone in"
	@echo "   a temporary folder), under portable kernels: $(PORTABLE_ENV)"
	@$(call STAGE,4 bare copies under portable kernels,$(call BARE_PASS,,$(DURATIONS)))
	@echo "== make test, stage 5 of 5: reference/status.json describes every notebook as it is"
	@$(call STAGE,5 status data current,$(PY) -m ice_teach status --check)
	@echo "== make test: time per stage"; sort $(STAGES)
	@! grep -q FAILED $(STAGES) || (echo "== make test FAILED"; exit 1)

test-portable: $(STAMP)
	@$(call BARE_PASS,$(NB))

# Seconds, not minutes: no kernel, no notebook, no child process (tests/conftest.py
# refuses an unmarked test that starts one).
test-unit: $(STAMP)
	$(PY) -m pytest tests -m "not kernel" -q $(DURATIONS)

# Everything in tests/ that starts a kernel or a process (stage 3 without the notebooks).
test-kernel: $(STAMP)
	env $(ONE_THREAD) PYTHONPATH=$(SUPPORT) $(PY) -m pytest tests -m kernel $(XDIST) $(DURATIONS)

# One notebook (or a few), both passes: make test-nb NB=labs/lab-tensors.ipynb
test-nb: $(STAMP)
	env $(STATUS) ICE_STATUS_PASS=1 $(PY) -m pytest -p status_plugin $(NB) $(NBVAL)
	@$(call BARE_PASS,$(NB))

# Re-execute notebooks in place to refresh committed outputs (all, or NB=...).
execute: $(STAMP)
	$(PY) -m ice_teach execute $(NB)

# The oldest torch pyproject.toml accepts and the newest one pip offers: unit tests and every
# notebook executed (outputs not compared) in a venv each, under .venv-compat/. Slow (GBs
# of installs), so not part of `make test` or CI.
COMPAT_TORCH ?= 2.6.0 2.15.0
test-compat:
	$(PYTHON) -m ice_teach compat $(COMPAT_TORCH)

# Colab's runtimes (reference/colab/*.txt, Colab's published package lists): installing
# ice_lab as the setup cell does must change no package Colab ships; then every chapter,
# lab and solved student edition runs in a venv with that runtime's versions (IPython 7,
# ipywidgets 7, its torch; Python 3.11 here), under .venv-colab/. Writes reference/colab.json.
# Slow (a torch install per runtime): not part of `make test` or CI. RUNTIME=2025.07-gpu
# for one.
RUNTIME ?=
test-colab: $(STAMP)
	$(PY) -m ice_teach colab $(RUNTIME)

# The notebooks that start DataLoader workers or child processes, executed with workers
# started by spawn only (as on Windows; macOS's default too) and by forkserver (Python
# 3.14's default on Linux). Writes reference/start-methods.json. Not part of `make test`.
test-start-methods: $(STAMP)
	$(PY) -m ice_teach start-methods

# Every learner package resolved from wheels for Python 3.11-3.14 on Linux, macOS and
# Windows (uv; the package index is needed). Writes reference/python-support.json.
test-python-support: $(STAMP)
	$(PY) -m ice_teach python-support

# The book in a browser: every page of _toc.yml in Debian's Chromium (apt-get install
# chromium) at 1280x900 and 390x844, and one lab run in JupyterLab. Builds or updates
# _build/html first; screenshots land in _build/screenshots/. See tests_browser/.
test-browser: book
	$(PY) -m pytest tests_browser -p no:cacheprovider -n 2 --dist loadgroup

# Progress bars on: TQDM_DISABLE=1 (exported above for stable executed outputs) is not
# for learners.
lab: $(STAMP)
	env -u TQDM_DISABLE $(VENV)/bin/jupyter lab labs

# Teachers (book/teachers.md): the student edition of every lab into student/ (committed),
# and grading a folder of submissions: make grade LAB=lab-nan SUBMISSIONS=dir, JOBS=N at
# once (default: the cores), TIMEOUT=seconds per cell (default 120, or what the lab asks
# for), in the bubblewrap sandbox; UNSANDBOXED=1 grades without it (trusted submissions
# only); CANVAS_ROSTER=export.csv: Canvas's gradebook export, for the Canvas CSV. Progress
# bar on.
student: $(STAMP)
	$(PY) -m ice_teach student

JOBS ?=
TIMEOUT ?=
UNSANDBOXED ?=
CANVAS_ROSTER ?=
grade: $(STAMP)
	env -u TQDM_DISABLE $(PY) -m ice_teach grade $(LAB) $(SUBMISSIONS) $(if $(JOBS),--jobs $(JOBS)) \
		$(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(filter 1,$(UNSANDBOXED)),--no-sandbox) \
		$(if $(CANVAS_ROSTER),--canvas-roster $(CANVAS_ROSTER))

doctor: $(STAMP)
	$(PY) -m ice_lab doctor

clean:
	rm -rf _build .pytest_cache

# The book online (book/intro.md, "Three ways in"): build it strictly, then push
# _build/html to the gh-pages branch of origin with ghp-import, as Jupyter Book 1 documents
# (-n: a .nojekyll file, so GitHub Pages serves _static/ as it is). On every push to main,
# .github/workflows/pages.yml builds and deploys the same pages.
.PHONY: publish status
publish: book-strict
	$(VENV)/bin/ghp-import -n -p -f -m "Book built from $$(git rev-parse --short HEAD)" _build/html

# What the status page will say: every notebook's last results, and which notebooks changed
# since (ice_teach/status.py reads reference/status.json, written by make test).
status: $(STAMP)
	$(PY) -m ice_teach status
