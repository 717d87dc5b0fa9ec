# Two commands a user needs: `make run` (kiosk app) and `make test`. The first use creates .venv.
PYTHON ?= python3.11
VENV ?= .venv
STAMP := $(VENV)/.installed

.PHONY: run test install clean-venv

$(STAMP): pyproject.toml
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev,train]'  # train: the small-talk corpora the training tests read
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/avatar run $(ARGS)

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -q $(ARGS)

clean-venv:
	rm -rf $(VENV)
