#!/bin/sh
# Makes internal/workload/dump/testdata/mariadb-help.sql.gz: a real
# mariadb-dump of what a Debian package's database holds after its own
# setup — the help tables mariadb-install-db fills (mariadb-server's
# fill_help_tables.sql) — for the test that loads a real dump into every
# engine. Runs a private server on a unix socket in a temporary directory.
set -eu
out=${1:-internal/workload/dump/testdata/mariadb-help.sql.gz}
dir=$(mktemp -d)
trap 'kill "$(cat "$dir/pid" 2>/dev/null)" 2>/dev/null || true; sleep 1; rm -rf "$dir"' EXIT
mariadb-install-db --no-defaults --datadir="$dir/data" --user="$(id -un)" --auth-root-authentication-method=normal --skip-test-db >/dev/null
mariadbd --no-defaults --datadir="$dir/data" --socket="$dir/sock" --skip-networking --user="$(id -un)" --pid-file="$dir/pid" --log-error="$dir/err.log" &
for i in $(seq 1 50); do [ -S "$dir/sock" ] && break; sleep 0.2; done
mariadb-dump -S "$dir/sock" -uroot mysql help_category help_keyword help_relation help_topic | gzip -9n > "$out"
echo "wrote $out: $(zcat "$out" | wc -c) bytes, $(zcat "$out" | grep -c '^INSERT') INSERT statements"
