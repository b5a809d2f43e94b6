# Two entry points (see README): `make app` and `make test`. Both set everything up themselves.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
APP_STAMP := $(VENV)/.app-stamp
PORT ?= 8501

.PHONY: app check test chromium postgresql haproxy bench

# Two stamps: `make app` installs what the app needs (fairval and its dependencies), `make test`/`check`
# add the test extras (pytest, Playwright, ruff, mypy) on top. Quiet: pip's and setuptools' output goes
# to .venv/install.log, shown only when the install fails.
$(APP_STAMP): pyproject.toml constraints.txt
	@echo "installing fairval and its packages into $(VENV)/ (log: $(VENV)/install.log)"
	@$(PYTHON) -m venv $(VENV)
	@{ $(PY) -m pip install -q --upgrade "pip>=24" && $(PY) -m pip install -q -c constraints.txt -e .; } \
		> $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; echo "install failed: see $(VENV)/install.log"; exit 1; }
	@touch $(APP_STAMP)

$(STAMP): $(APP_STAMP)
	@echo "installing the test tools into $(VENV)/ (log: $(VENV)/install.log)"
	@$(PY) -m pip install -q -c constraints.txt -e '.[test]' > $(VENV)/install.log 2>&1 \
		|| { cat $(VENV)/install.log; echo "install failed: see $(VENV)/install.log"; exit 1; }
	@touch $(STAMP)

# Browser tests drive Debian's Chromium (no Playwright browser download on these machines).
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# The store's tests also run against a throwaway PostgreSQL cluster the tests start (Debian's server).
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }

# `fairval serve --workers N` runs Debian's HAProxy in front of its Streamlit workers.
haproxy:
	@command -v haproxy >/dev/null 2>&1 || test -x /usr/sbin/haproxy || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; }

# The demo runs one Streamlit process: no HAProxy, no system package, no root (HAProxy is needed only for
# `fairval serve --workers N` or HTTPS; `make haproxy` installs it).
app: $(APP_STAMP)
	$(VENV)/bin/fairval --db fairval-demo.db demo --port $(PORT)

# The fast loop: lint, types and every test that needs no browser, no PostgreSQL and no benchmark run.
check: $(STAMP)
	$(PY) tools/lint.py
	$(PY) -m pytest -q --sqlite-only --ignore=tests/e2e --ignore=tests/test_bench.py

# Lint and types first (ruff, mypy: tools/lint.py), then the tests; either failing fails the build.
test: $(STAMP) chromium postgresql haproxy
	$(PY) tools/lint.py
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) bench/run.py
