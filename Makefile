# Two commands do the whole set-up on a fresh machine: `make book` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Executed outputs must not depend on timing or hash order (see tools/booktools.py).
export TQDM_DISABLE := 1
export PYTHONHASHSEED := 0
export PYDEVD_DISABLE_FILE_VALIDATION := 1

NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg --nbval-cell-timeout 600
JB_STRICT := -W --keep-going
# The portability pass runs two notebooks at a time (one thread each, so two cores are not
# oversubscribed), each whole notebook in one worker (nbval's cells share a kernel).
XDIST := -n 2 --dist loadfile
# The portability pass: generic (non-vectorised) ATen kernels, one thread, MKL's reproducible
# code path. Other CPUs round differently; committed outputs must hold under both settings.
# Why these three: CONTRIBUTING.md, "Outputs that hold on any CPU".
PORTABLE_ENV := ATEN_CPU_CAPABILITY=default OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 MKL_CBWR=COMPATIBLE

.PHONY: venv book book-strict test test-unit test-nb test-portable test-compat test-browser \
	execute lab doctor clean student grade

venv: $(STAMP)

# The venv is (re)built from the CI pins whenever pyproject.toml or the pins change.
$(STAMP): pyproject.toml constraints/ci.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints/ci.txt -e ".[book,test,lab,export,browser,teach]"
	touch $@

book: $(STAMP)
	$(VENV)/bin/jupyter-book build . --builder html
	@echo "HTML book: _build/html/index.html"

book-strict: $(STAMP)
	$(VENV)/bin/jupyter-book build . --builder html $(JB_STRICT)

# Pass 1: unit tests, notebook conventions and strict nbval over every notebook.
# Pass 2: strict nbval over every notebook again, under the portable kernel settings.
test: book-strict
	@echo "== make test, pass 1 of 2: unit tests and strict nbval, this machine's CPU kernels"
	$(PY) -m pytest tests book labs $(NBVAL)
	@echo "== make test, pass 2 of 2: strict nbval under portable kernels: $(PORTABLE_ENV)"
	env $(PORTABLE_ENV) $(PY) -m pytest book labs $(NBVAL) $(XDIST)

test-portable: $(STAMP)
	env $(PORTABLE_ENV) $(PY) -m pytest $(or $(NB),book labs) $(NBVAL) $(XDIST)

test-unit: $(STAMP)
	$(PY) -m pytest tests

# One notebook (or a few), both passes: make test-nb NB=labs/lab-tensors.ipynb
test-nb: $(STAMP)
	$(PY) -m pytest $(NB) $(NBVAL)
	env $(PORTABLE_ENV) $(PY) -m pytest $(NB) $(NBVAL)

# Re-execute notebooks in place to refresh committed outputs (all, or NB=...).
execute: $(STAMP)
	$(PY) tools/booktools.py execute $(NB)

# The oldest torch pyproject.toml accepts and the newest one pip offers: unit tests and every
# notebook executed (outputs not compared) in a venv each, under .venv-compat/. Slow (GBs
# of installs), so not part of `make test` or CI.
COMPAT_TORCH ?= 2.6.0 2.15.0
test-compat:
	$(PYTHON) tools/compat.py $(COMPAT_TORCH)

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
# and grading a folder of submissions: make grade LAB=lab-nan SUBMISSIONS=dir
student: $(STAMP)
	$(PY) tools/student.py

grade: $(STAMP)
	$(PY) tools/grade.py $(LAB) $(SUBMISSIONS)

doctor: $(STAMP)
	$(PY) -m ice_lab doctor

clean:
	rm -rf _build .pytest_cache
