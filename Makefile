# Two entry points (see README): `make app` and `make test`. Both set everything up themselves.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
APP_STAMP := $(VENV)/.app-stamp
PORT ?= 8501

.PHONY: app check test pythons chromium postgresql haproxy oidc-provider podman bench

# Two stamps: `make app` installs what the app needs (fairval and its dependencies), `make test`/`check`
# add the test extras (pytest, Playwright, ruff, mypy) and single sign-on's (Authlib) on top. Quiet: pip's
# and setuptools' output goes to .venv/install.log, shown only when the install fails.
$(APP_STAMP): pyproject.toml constraints.txt
	@echo "installing fairval and its packages into $(VENV)/ (log: $(VENV)/install.log)"
	@$(PYTHON) -m venv $(VENV)
	@{ $(PY) -m pip install -q --upgrade "pip>=24" && $(PY) -m pip install -q -c constraints.txt -e .; } \
		> $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; echo "install failed: see $(VENV)/install.log"; exit 1; }
	@touch $(APP_STAMP)

$(STAMP): $(APP_STAMP)
	@echo "installing the test tools into $(VENV)/ (log: $(VENV)/install.log)"
	@$(PY) -m pip install -q -c constraints.txt -e '.[test,sso]' > $(VENV)/install.log 2>&1 \
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

# The single sign-on tests start a real OpenID Connect provider on 127.0.0.1: node-oidc-provider (OpenID Certified),
# from npm at the version tests/oidc/package-lock.json pins, on Node.js (Debian's when the machine has none).
oidc-provider:
	@command -v npm >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }
	@test -d tests/oidc/node_modules/oidc-provider || npm ci --prefix tests/oidc --no-audit --no-fund --silent

# The container test (tests/e2e/test_container_server.py) builds the Dockerfile with Debian's podman, runs it
# with runc (crun refuses hosts whose cgroups are mounted v1 and v2 together) and makes the image's Debian base
# with mmdebstrap (no registry is reachable where the tests run); slirp4netns lets a container reach the
# PostgreSQL the tests start on 127.0.0.1.
podman:
	@(for tool in podman runc slirp4netns mmdebstrap; do command -v $$tool >/dev/null 2>&1 || exit 1; done) \
		|| { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc slirp4netns mmdebstrap >/dev/null; }

# The demo runs one Streamlit process: no HAProxy, no system package, no root (HAProxy is needed only for
# `fairval serve --workers N` or HTTPS; `make haproxy` installs it).
app: $(APP_STAMP)
	$(VENV)/bin/fairval --db fairval-demo.db demo --port $(PORT)

# The tests outside tests/e2e and the benchmarks run in one pytest process per core (pytest-xdist): every test
# has its own database, files and free ports, and each process starts its own PostgreSQL cluster. The browser,
# server and benchmark tests run after them in two processes, a file at a time (--dist loadfile: a module's
# server and Chromium stay in one process; every server takes a free port and its own folder). They mostly wait
# on browsers and servers, so two overlap without crowding the cores; test_bench.py, the longest file, goes first
# so that it does not run alone at the end.
PARALLEL := -n logical --maxprocesses=8
BROWSERS := -n 2 --dist loadfile tests/test_bench.py tests/e2e

# The fast loop: lint, types and every test that needs no browser, no PostgreSQL and no benchmark run.
check: $(STAMP)
	$(PY) tools/lint.py
	$(PY) $(FAST_TIER)

# Lint and types first (ruff, mypy: tools/lint.py), then the tests in two runs; the second runs even when the
# first failed, as one run would have, and either failing fails the build.
test: $(STAMP) chromium postgresql haproxy oidc-provider podman
	$(PY) tools/lint.py
	@status=0; set -x; $(PY) -m pytest $(PARALLEL) --ignore=tests/e2e --ignore=tests/test_bench.py || status=1; \
		$(PY) -m pytest $(BROWSERS) || status=1; exit $$status

# The fast tier of `make check` on the other Pythons fairval supports (3.11 is .venv's, above): one venv each,
# .venv-3.12/ and .venv-3.13/, with the same pins. The interpreter is pyenv's newest 3.N.x, else python3.N
# on the PATH (Debian's, deadsnakes'). Not part of `make test`: each venv runs the tier again (minutes).
PYTHONS ?= 3.12 3.13
PYENV_ROOT ?= $(HOME)/.pyenv
FAST_TIER := -m pytest -q --sqlite-only --ignore=tests/e2e --ignore=tests/test_bench.py $(PARALLEL)

.venv-%/.installed-stamp: pyproject.toml constraints.txt
	@py=$$(ls -d $(PYENV_ROOT)/versions/$*.*/bin/python$* 2>/dev/null | sort -V | tail -1); \
	py=$${py:-$$(command -v python$* 2>/dev/null)}; \
	test -n "$$py" && $$py -c '' 2>/dev/null || { echo "no Python $* here: 'pyenv install $*' or Debian's python$*"; exit 1; }; \
	echo "installing fairval and its test tools into .venv-$*/ with $$py (log: .venv-$*/install.log)"; \
	$$py -m venv .venv-$* && { .venv-$*/bin/python -m pip install -q --upgrade "pip>=24" \
		&& .venv-$*/bin/python -m pip install -q -c constraints.txt -e '.[test,sso]'; } > .venv-$*/install.log 2>&1 \
		|| { cat .venv-$*/install.log; echo "install failed: see .venv-$*/install.log"; exit 1; }
	@touch $@

# Every Python runs even when one fails; the target fails if any did.
pythons: $(foreach v,$(PYTHONS),.venv-$(v)/.installed-stamp)
	@failed=""; for v in $(PYTHONS); do echo "== Python $$v: $$(.venv-$$v/bin/python -V)"; \
		.venv-$$v/bin/python $(FAST_TIER) || failed="$$failed $$v"; done; \
	test -z "$$failed" || { echo "the fast tier failed on Python$$failed"; exit 1; }

bench: $(STAMP)
	$(PY) bench/run.py
