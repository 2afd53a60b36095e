# The two commands of the README: `make demo` and `make test`.
# Both install what is missing (Debian packages need root and apt).

SHELL   := /bin/bash
BIN     := bin/shootout
GO      ?= go
DEB_PKGS := mariadb-server mariadb-plugin-rocksdb mariadb-plugin-spider libmariadb-dev libjemalloc2 libtcmalloc-minimal4 postgresql sysbench fio gcc chromium e2fsprogs \
            redmine ruby-mysql2 ruby-pg ruby-sqlite3 puma maven unzip pgreplay wordpress wordpress-theme-twentytwentythree php php-fpm php-mysql nginx \
            redis-server redis-tools memcached tarantool galera-4 rsync socat
OUT     ?= results/demo
PKGS    ?= $(DEB_PKGS)
# another build of MariaDB for the tests and the shop study (11.4.5 from
# Maven Central beside Debian's 10.11): scripts/fetch-mariadb-build.sh
BUILDS  ?= /var/cache/shootout/builds
MARIADB_BUILD := $(BUILDS)/mariadb-11.4.5
# what test-cgroup2 boots: Debian's kernel (cgroup v2) under qemu's TCG
GUEST_PKGS := qemu-system-x86 linux-image-amd64 busybox-static cpio

.PHONY: all build deps deps-builds deps-guest demo studies test test-unit test-cgroup2 bench vet fmt clean

all: build

# deps installs the Debian packages that are missing, with one apt-get update.
deps:
	@missing=""; for p in $(PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "need root to apt-get install:$$missing" >&2; exit 1; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  echo 'redmine redmine/dbconfig-install boolean false' | debconf-set-selections; \
	  apt-get update -q && apt-get install -y -q --no-install-recommends $$missing; \
	fi; \
	if dpkg -s redmine >/dev/null 2>&1 && ! dpkg -s redmine | grep -q '^Status: install ok installed'; then \
	  echo "finishing redmine's configuration with Debian's bundler (its own lacks Debian's rubygems integration)"; \
	  BUNDLER_VERSION=2.3.15 dpkg --configure -a; \
	fi

build:
	$(GO) build -o $(BIN) ./cmd/shootout

# demo runs the default study (oltp_read_write, 100k rows, 8 clients, 8 s on
# sqlite, mariadb-innodb, mariadb-rocksdb and postgres, 4 repeats each in
# turns: the fewest that can tell two targets apart) and prints the table.
demo: deps build
	./$(BIN) targets
	./$(BIN) run --study default --out $(OUT)-$$(date +%Y%m%d-%H%M%S)

# studies runs every preset study on real servers, its --quick where it has
# one (the default study has none: it is minutes as it is), each into its own
# directory: the whole-study check the tests leave out (they run each study's
# plan on a fake target, and each fact only a real server shows as one short
# cell). An hour or more: not part of test.
studies: deps build
	$(MAKE) --no-print-directory deps-builds
	set -e; dir=$(OUT)-studies-$$(date +%Y%m%d-%H%M%S); \
	quick=$$(./$(BIN) run --help | sed -n 's/.*studies with one: \([^;]*\);.*/\1/p' | tr -d ,); \
	test -n "$$quick"; \
	./$(BIN) run --study default --out $$dir/default; \
	for s in $$quick; do ./$(BIN) run --study $$s --quick --out $$dir/$$s; done

test: deps
	$(MAKE) --no-print-directory deps-builds
	gofmt -l . | (! grep .) || (echo "gofmt needed on the files above" >&2; exit 1)
	$(GO) vet ./...
	# one package at a time: the packages that start servers measure the
	# disk and the CPU, which tests of another package would share; the
	# timeout is for a hang, which the stall watch now ends by itself.
	# Each package's time is listed at the end, slowest first.
	@mkdir -p bin
	set -o pipefail; $(GO) test -p 1 -count=1 -timeout 30m ./... 2>&1 | tee bin/test.log; rc=$$?; \
	echo "package times, slowest first:"; \
	awk '($$1 == "ok" || $$1 == "FAIL") && $$3 ~ /^[0-9.]+s$$/ { printf "%8.1f s  %-4s %s\n", $$3, $$1, $$2 }' bin/test.log | sort -rn; \
	exit $$rc

# deps-builds puts MariaDB 11.4.5's own binaries in $(MARIADB_BUILD).
deps-builds:
	@if [ ! -x $(MARIADB_BUILD)/bin/mariadbd ]; then \
	  scripts/fetch-mariadb-build.sh 11.4.5 $(BUILDS); \
	fi

# deps-guest installs what test and test-cgroup2 need, with one apt-get update.
deps-guest:
	$(MAKE) --no-print-directory deps PKGS="$(DEB_PKGS) $(GUEST_PKGS)"

# test-cgroup2 runs the limits tests on a real cgroup v2 kernel: Debian's
# kernel under qemu (TCG), the host's / shared read-only (docs/design.md),
# booted once for the three test binaries in turn: every test of
# internal/limits, then the cells under a memory cap, an IOPS cap, a fio
# neighbour and a CPU quota with a private MariaDB in the guest (the cells
# without limits these tests compare against, which show the server and
# not the cgroups, and the IOPS cap on PostgreSQL, the same io.max, run on
# the host only), then a shootout SIGKILLed mid-cell and the next
# command's sweep. Each binary's output is kept in bin/guest/NAME.test.log;
# the target fails naming each binary that failed.
GUEST_RUN_TESTS := ^(TestMemoryCapLimitsThePageCache|TestIOPSCapBoundsServicedIOs|TestNeighbourLoadIsMeasuredAndCleanedUp|TestCPUQuotaBoundsServerCPU)$$/^mariadb-innodb$$
test-cgroup2: deps-guest build
	mkdir -p bin/guest
	$(GO) test -c -o bin/guest/limits.test ./internal/limits
	$(GO) test -c -o bin/guest/run.test ./internal/run
	$(GO) test -c -o bin/guest/shootout.test ./cmd/shootout
	CI=true GUEST_TIMEOUT=2400 scripts/cgroup2-guest.sh \
	  bin/guest/limits.test -test.v -test.timeout 10m --- \
	  bin/guest/run.test -test.v -test.timeout 18m -test.run '$(GUEST_RUN_TESTS)' --- \
	  SHOOTOUT_TEST_BIN=$(abspath $(BIN)) bin/guest/shootout.test -test.v -test.timeout 8m -test.run TestKilledShootoutLeavesNothingBehind

test-unit:
	$(GO) test -short -count=1 ./...

# bench: shootout vs sysbench on one private MariaDB, and vs redis-benchmark
# on one private redis-server (see BENCHMARKS.md).
bench: deps build
	$(GO) run ./bench -shootout $(BIN)

clean:
	rm -rf bin
