# Two commands a user needs: `make run` (kiosk app) and `make test`. The first use creates .venv.
# `make run` also installs the system libraries the kiosk needs (PortAudio, Qt's xcb platform libraries)
# with apt-get when it may (as root, or with sudo that asks no password), else it says what is missing
# and the command that installs it. `make test` runs the device tests too (tests/test_devices_live.py:
# as root on Debian they install PulseAudio and PortAudio themselves); `make test ARGS='-m "not devices"'`
# leaves them out.
PYTHON ?= python3.11
VENV ?= .venv
STAMP := $(VENV)/.installed

.PHONY: run test install system-deps clean-venv

$(STAMP): pyproject.toml tools/pyproject.toml
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev,train]' -e ./tools  # train: the small-talk corpora the training tests read; tools: benches, evaluations, training
	@touch $(STAMP)

install: $(STAMP)

system-deps: $(STAMP)
	-@$(VENV)/bin/python -m avatar.sysdeps --install

run: system-deps
	$(VENV)/bin/avatar run $(ARGS)

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -q $(ARGS)

clean-venv:
	rm -rf $(VENV)
