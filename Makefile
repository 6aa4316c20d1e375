# Skill Console — two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000
DEMO   ?=

.PHONY: run serve test test-postgres install setup chromium migrate demo clean mutation mutation-domain bench lock lint

## The rule and the runtime client are distributions of their own (packages/, docs/design.md): one pip
## command installs them with the console, so pip finds the names the console depends on right here.
## The versions installed are the lock's (requirements/constraints.txt): `make lock` writes it.
PACKAGES := packages/skill-rule packages/skill-client
LOCK := requirements/constraints.txt
$(STAMP): pyproject.toml $(addsuffix /pyproject.toml,$(PACKAGES)) $(LOCK)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c $(LOCK) $(addprefix -e ,$(PACKAGES)) -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## Debian's Chromium (and a CJK font so Chinese pages render) for the browser tests —
## never a downloaded browser.
chromium:
	@{ command -v chromium >/dev/null 2>&1 && fc-list 2>/dev/null | grep -qi "wenquanyi\|noto sans cjk"; } || { \
	  echo "installing Debian's chromium and fonts-wqy-microhei for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null; }

migrate: install
	install -d -m 0700 var  # owner only, narrowed when it exists (docs/deploy.md)
	$(PY) manage.py migrate --noinput -v0

## DEMO= names a demo catalog (bitmall, returns); empty = top up whatever demo the database holds.
demo: migrate
	$(PY) manage.py load_demo $(DEMO)
	$(PY) manage.py sync_mcp --demo --trigger "make run"

setup: demo
	$(PY) manage.py ensure_admin --url http://$(HOST):$(PORT)

## The task worker (django-q2's `manage.py qcluster`: the MCP syncs, test calls and schedules,
## docs/deploy.md "Background jobs") runs next to the web server and stops with it: Ctrl-C, a
## signal to make or to the recipe's shell, or the server ending by itself stops both.
## WITH_WORKER runs COMMAND next to the worker. The worker is signalled a second after the server:
## Ctrl-C has already reached it (qcluster stops on SIGINT), and django-q2's handler can deadlock
## when a second signal lands while it handles the first.
define WITH_WORKER
trap 'kill $$server 2>/dev/null; sleep 1; kill $$worker 2>/dev/null; wait; exit 130' INT TERM HUP; \
$(PY) manage.py qcluster & worker=$$!; \
$(1) & server=$$!; \
wait $$server; status=$$?; kill $$worker 2>/dev/null; wait $$worker; exit $$status
endef

run: setup
	@echo "Skill Console: http://$(HOST):$(PORT)/  (log in with the admin login above; the task worker runs beside it; Ctrl-C stops both)"
	@$(call WITH_WORKER,$(PY) manage.py runserver $(HOST):$(PORT))

## Like production: gunicorn (WEB_CONCURRENCY workers, default 2 × cores + 1) with WhiteNoise; on
## PostgreSQL + Redis when SKILL_CONSOLE_DB=postgres and SKILL_CONSOLE_REDIS_URL are set (docs/deploy.md).
serve: setup
	@echo "Skill Console (gunicorn): http://$(HOST):$(PORT)/  (the task worker runs beside it; Ctrl-C stops both)"
	@$(call WITH_WORKER,SKILL_CONSOLE_BIND=$${SKILL_CONSOLE_BIND:-$(HOST):$(PORT)} $(VENV)/bin/gunicorn -c gunicorn.conf.py)

## TEST_JOBS: pytest-xdist workers (auto = one per core, at most 4); each test file runs whole in
## one worker (--dist loadfile), so a file's fixtures and its browser stay together.
TEST_JOBS ?= auto
XDIST     := -n $(TEST_JOBS) --maxprocesses 4 --dist loadfile
## PYTEST_ARGS: more pytest options, e.g. `make test PYTEST_ARGS='-k sync'` (.ci/run lists the slowest tests).
PYTEST_ARGS ?=

test: install chromium
	$(PY) -m pytest $(XDIST) $(PYTEST_ARGS)

## The same suite on the scale-out database (the browser tests and tests/domain, which never
## touch a database, aside): PostgreSQL at 127.0.0.1:5432.
test-postgres: install
	SKILL_CONSOLE_DB=postgres PGUSER=$${PGUSER:-postgres} PGDATABASE=$${PGDATABASE:-test} $(PY) -m pytest $(XDIST) --ignore=tests/browser --ignore=tests/domain -p no:cacheprovider $(PYTEST_ARGS)

## Mutation testing of the services, the releases and the MCP sync (slow, so not part of `make test`;
## the rule is mutated by `make mutation-domain` below):
## mutmut breaks one line at a time in a copy under mutants/ and runs the tests that reach it, then
## the score is printed per part (docs/testing.md). MUTANTS narrows the run, e.g.
## `make mutation MUTANTS='skills_app.catalog.services.*'`; MUTATION_JOBS is how many mutants at once.
## tools/mutmut_run.py is mutmut's command line that also mutates the @transaction.atomic writes.
MUTMUT        := tools/mutmut_run.py
MUTANTS       ?=
MUTATION_JOBS ?= 2
mutation: install
	@# mutmut copies skills_app's other files (translations, demo catalogs) only when it makes mutants/:
	@# bring them up to date, or the tests of a later run read the old ones
	@test ! -d mutants/skills_app || { cd skills_app && find . -type f ! -name '*.py' ! -path '*__pycache__*' \
	  -exec install -D -m 644 {} ../mutants/skills_app/{} \; ; }
	nice -n 19 $(PY) $(MUTMUT) run --max-children $(MUTATION_JOBS) $(MUTANTS)
	$(PY) tools/mutation_score.py

## The rule (packages/skill-rule) against its library tests (tests/domain, no database): seconds a mutant
## instead of the 20-40 s the database tests that also reach it would cost. Runs in its own git-ignored directory
## mutants-domain/ (tools/mutation_domain.py makes it: links to the sources, packages/skill-rule/src as
## src, and a pyproject.toml whose [tool.mutmut] names the rule and tests/domain only), so its results never reset those of
## `make mutation`. `make mutation-domain MUTATION_JOBS=1 MUTANTS='skill_rule.rules.x_guard*'`
## MUTATION_TESTS (paths under tests/domain) holds a module to its own tests, in a directory of its own:
## `make mutation-domain MUTATION_DOMAIN_DIR=mutants-scripts MUTATION_TESTS='tests/domain/test_scripts.py
## tests/domain/test_scripts_exact.py' MUTANTS='skill_rule.scripts.*'`
MUTATION_DOMAIN_DIR ?= mutants-domain
MUTATION_TESTS      ?=
mutation-domain: install
	$(PY) tools/mutation_domain.py $(MUTATION_DOMAIN_DIR) $(MUTATION_TESTS)
	cd $(MUTATION_DOMAIN_DIR) && nice -n 19 ../$(PY) ../$(MUTMUT) run --max-children $(MUTATION_JOBS) $(MUTANTS)
	cd $(MUTATION_DOMAIN_DIR) && ../$(PY) ../tools/mutation_score.py

## Benchmarks (docs/benchmarks.md; not part of `make test`): builds the 500-skill / 2,000-tool catalog
## under var/bench/, serves it with gunicorn next to the floors of bench/urls.py, prints every ratio
## against its target. Exit 0 even when a target is missed, unless BENCH_STRICT=1.
bench: install
	$(PY) -m bench

## The lock: `uv pip compile` resolves pyproject.toml's ranges (every extra) for Python 3.11+ on any
## platform and keeps the versions already locked; LOCK_ARGS=--upgrade takes the newest of every
## package, LOCK_ARGS='--upgrade-package django' of one. Commit the file; docs/deploy.md.
LOCK_ARGS ?=
lock: install
	$(VENV)/bin/uv pip compile requirements/lock.in --universal --python-version 3.11 --quiet \
	  --no-emit-package skill-console --no-emit-package skill-console-rule --no-emit-package skill-console-client \
	  --custom-compile-command 'make lock' $(LOCK_ARGS) -o $(LOCK)
	$(PY) -m pip install -q -c $(LOCK) $(addprefix -e ,$(PACKAGES)) -e '.[dev]'

## Static checks (.ci/run runs them before the tests; docs/testing.md "Lint and types"): the
## import-linter contracts of pyproject.toml ([tool.importlinter]), Ruff, then mypy on the pure packages
## ([tool.mypy] files); `ruff format .` formats the tree as `ruff format --check` wants it.
lint: install
	$(VENV)/bin/lint-imports
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) var .pytest_cache mutants mutants-domain
