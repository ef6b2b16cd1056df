# Two commands do the whole set-up on a fresh machine: `make book` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Pyodide, for the book's "Explain an error" page (fetched from npm by `make book`)
PYODIDE := tools/pyodide/node_modules/.package-lock.json
# Executed outputs must not depend on timing or hash order (see tools/booktools.py).
export TQDM_DISABLE := 1
export PYTHONHASHSEED := 0
export PYDEVD_DISABLE_FILE_VALIDATION := 1

NBVAL := --nbval --nbval-current-env --nbval-sanitize-with $(CURDIR)/tests/sanitize.cfg \
	--nbval-cell-timeout 600
JB_STRICT := -W --keep-going
# The portability pass runs two notebooks at a time (one thread each, so two cores are not
# oversubscribed), each whole notebook in one worker (nbval's cells share a kernel).
XDIST := -n 2 --dist loadfile
# The portability pass: generic (non-vectorised) ATen kernels, one thread, MKL's reproducible
# code path. Other CPUs round differently; committed outputs must hold under both settings.
# Why these three: CONTRIBUTING.md, "Outputs that hold on any CPU".
PORTABLE_ENV := ATEN_CPU_CAPABILITY=default OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 MKL_CBWR=COMPATIBLE
# The portability pass also runs on bare copies: each notebook alone in a folder of its own
# under a fresh temporary folder (tests/bare_folders.py), as on Colab, so a notebook that
# reads a file of the repository fails. $(1): notebooks or folders (default: book and labs).
define BARE_PASS
bare=$$(mktemp -d -t ice-bare-XXXXXX) && $(PY) tests/bare_folders.py $$bare $(1) >/dev/null \
	&& cd $$bare && env $(PORTABLE_ENV) $(CURDIR)/$(PY) -m pytest . -p no:cacheprovider \
	$(NBVAL) $(XDIST); status=$$?; rm -rf $$bare; exit $$status
endef

.PHONY: venv book book-strict test test-unit test-nb test-portable test-compat test-browser \
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

# Pass 1: unit tests, notebook conventions and strict nbval over every notebook.
# Pass 2: strict nbval over every notebook again, each a bare copy alone in a temporary
# folder, under the portable kernel settings.
test: book-strict
	@echo "== make test, pass 1 of 2: unit tests and strict nbval, this machine's CPU kernels"
	$(PY) -m pytest tests book labs $(NBVAL)
	@echo "== make test, pass 2 of 2: strict nbval on bare copies (each notebook alone in a"
	@echo "   temporary folder), under portable kernels: $(PORTABLE_ENV)"
	@$(call BARE_PASS,)

test-portable: $(STAMP)
	@$(call BARE_PASS,$(NB))

test-unit: $(STAMP)
	$(PY) -m pytest tests

# One notebook (or a few), both passes: make test-nb NB=labs/lab-tensors.ipynb
test-nb: $(STAMP)
	$(PY) -m pytest $(NB) $(NBVAL)
	@$(call BARE_PASS,$(NB))

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
# and grading a folder of submissions: make grade LAB=lab-nan SUBMISSIONS=dir, JOBS=N at
# once (default: the cores), TIMEOUT=seconds per cell (default 120), in the bubblewrap
# sandbox; UNSANDBOXED=1 grades without it (trusted submissions only). Progress bar on.
student: $(STAMP)
	$(PY) tools/student.py

JOBS ?=
TIMEOUT ?=
UNSANDBOXED ?=
grade: $(STAMP)
	env -u TQDM_DISABLE $(PY) tools/grade.py $(LAB) $(SUBMISSIONS) $(if $(JOBS),--jobs $(JOBS)) \
		$(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(filter 1,$(UNSANDBOXED)),--no-sandbox)

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
# since (tools/status.py reads reference/status.json, written by make test).
status: $(STAMP)
	$(PY) tools/status.py
