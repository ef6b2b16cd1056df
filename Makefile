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

.PHONY: venv book book-strict test test-unit test-nb execute lab doctor clean

venv: $(STAMP)

# The venv is (re)built from the CI pins whenever pyproject.toml or the pins change.
$(STAMP): pyproject.toml constraints/ci.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints/ci.txt -e ".[book,test,lab]"
	touch $@

book: $(STAMP)
	$(VENV)/bin/jupyter-book build . --builder html
	@echo "HTML book: _build/html/index.html"

book-strict: $(STAMP)
	$(VENV)/bin/jupyter-book build . --builder html $(JB_STRICT)

# Unit tests, notebook conventions, strict nbval over every notebook: one pytest summary.
test: book-strict
	$(PY) -m pytest tests book labs $(NBVAL)

test-unit: $(STAMP)
	$(PY) -m pytest tests

# One notebook (or a few): make test-nb NB=labs/lab-tensors.ipynb
test-nb: $(STAMP)
	$(PY) -m pytest $(NB) $(NBVAL)

# Re-execute notebooks in place to refresh committed outputs (all, or NB=...).
execute: $(STAMP)
	$(PY) tools/booktools.py execute $(NB)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab labs

doctor: $(STAMP)
	$(PY) -m ice_lab doctor

clean:
	rm -rf _build .pytest_cache
