#!/bin/bash
# redmine-capture.sh BACKEND OUT: the SQL Debian's Redmine 5.0.4 sends for the
# REST requests of shootout's redmine work cycles, from the server's own
# statement log, one request after another (docs/workloads.md, "Checking the
# statements against a real Redmine"). BACKEND is mariadb or postgres.
#
# Everything is private: a server in a temporary directory on a unix socket,
# a Redmine instance (Debian's multi-tenancy, REDMINE_INSTANCE) under
# /var/lib/redmine/shootout-capture-PID, puma on 127.0.0.1; all of it is
# removed on exit. Needs root and: redmine ruby-mysql2 ruby-pg puma curl.
#
# OUT gets, per request of the second round (the first warms Redmine's
# caches), a "-- request NAME" line and the statements of the request's own
# database connection, one per line; the background mail job's connection
# is left out, as shootout's workload leaves mail delivery out.
set -euo pipefail

backend=${1:?usage: redmine-capture.sh mariadb|postgres OUT}
out=${2:?usage: redmine-capture.sh mariadb|postgres OUT}
out=$(realpath -m "$out")
case $backend in mariadb|postgres) ;; *) echo "redmine-capture.sh: backend must be mariadb or postgres, not $backend" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "redmine-capture.sh: needs root (Redmine's instance directory, the postgres user)" >&2; exit 2; }
for f in /usr/share/redmine/config.ru /usr/bin/puma; do
	[ -e "$f" ] || { echo "redmine-capture.sh: $f missing; fix: apt-get install -y redmine ruby-mysql2 ruby-pg puma" >&2; exit 2; }
done

work=$(mktemp -d /tmp/shootout-redmine-capture.XXXXXX)
chmod 755 "$work"
instance=shootout-capture-$$
inst=/var/lib/redmine/$instance
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$inst" "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the database server ---
case $backend in
mariadb)
	sock=$work/mysqld.sock
	mariadb-install-db --no-defaults --datadir="$work/data" --auth-root-authentication-method=normal \
		--skip-test-db --user=root >"$work/install.log" 2>&1
	mariadbd --no-defaults --datadir="$work/data" --socket="$sock" --skip-networking --user=root \
		--general-log=1 --general-log-file="$work/general.log" --log-error="$work/error.log" \
		--pid-file="$work/mysqld.pid" &
	pids+=($!)
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	sqlc() { mariadb --no-defaults -S "$sock" -u root -N -B -e "$1"; }
	sqlc "CREATE DATABASE redmine CHARACTER SET utf8mb4"
	server_version=$(sqlc "SELECT VERSION()")
	cat >"$work/database.yml" <<-EOF
	production:
	  adapter: mysql2
	  database: redmine
	  socket: $sock
	  username: root
	  encoding: utf8mb4
	EOF
	;;
postgres)
	pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
	mkdir "$work/pg"
	chown postgres: "$work/pg"
	runuser -u postgres -- "$pgbin/initdb" -D "$work/pg/data" -U postgres --auth=trust -E UTF8 >"$work/install.log"
	runuser -u postgres -- "$pgbin/postgres" -D "$work/pg/data" -c listen_addresses= \
		-c unix_socket_directories="$work/pg" -c log_statement=all -c "log_line_prefix=%p|" \
		-c log_min_messages=warning -c fsync=off >"$work/pg/general.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do [ -S "$work/pg/.s.PGSQL.5432" ] && break; sleep 0.1; done
	sqlc() { "$pgbin/psql" -h "$work/pg" -U postgres -X -q -A -t -c "$1"; }
	sqlc "CREATE DATABASE redmine ENCODING 'UTF8' TEMPLATE template0" >/dev/null
	server_version=$(sqlc "SHOW server_version")
	cat >"$work/database.yml" <<-EOF
	production:
	  adapter: postgresql
	  database: redmine
	  host: $work/pg
	  username: postgres
	  encoding: utf8
	EOF
	;;
esac

# --- a private Redmine instance ---
mkdir -p "$inst"/{config,log,tmp/cache,files,public}
cp "$work/database.yml" "$inst/config/database.yml"
head -c 48 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$inst/config/secret_key.txt"
# Redmine's Gemfile picks the adapters' gems from every instance's
# database.yml; puma is added beside it, the lock file stays private
printf "eval_gemfile '/usr/share/redmine/Gemfile'\ngem 'puma'\n" >"$work/Gemfile"
export BUNDLE_GEMFILE=$work/Gemfile REDMINE_INSTANCE=$instance RAILS_ENV=production
cd /usr/share/redmine
echo "redmine-capture: migrating Redmine's schema on $backend $server_version" >&2
bundle exec rake db:migrate >"$work/migrate.log" 2>&1 || { tail -20 "$work/migrate.log" >&2; exit 1; }
bundle exec rake redmine:load_default_data REDMINE_LANG=en >>"$work/migrate.log" 2>&1
# the tables as Redmine's migrations made them, beside the capture
# (schema.go follows the MariaDB one)
case $backend in
mariadb) mariadb-dump --no-defaults -S "$sock" -u root --no-data --skip-comments --skip-dump-date redmine ;;
postgres) "$pgbin/pg_dump" -h "$work/pg" -U postgres --schema-only --no-owner redmine ;;
esac >"${out%.sql}-schema.sql"

# ten Developers in two projects with the issue tracker (ten members, as
# shootout's projects have), API keys, REST on; round 1 works in the first
# project, round 2 in the second, so the first request of each user in
# round 2 changes their recently used projects (an UPDATE of
# user_preferences) and the later ones do not
cat >"$work/setup.rb" <<-'EOF'
	Setting.rest_api_enabled = '1'
	developer = Role.find_by!(name: 'Developer')
	projects = %w[first second].map do |name|
	  project = Project.new(name: "Capture #{name}", identifier: "capture-#{name}", is_public: false)
	  project.enabled_module_names = ['issue_tracking']
	  project.trackers = Tracker.all
	  project.save!
	  project
	end
	10.times do |i|
	  u = User.new(firstname: 'User', lastname: i.to_s, mail: "user#{i}@capture.invalid")
	  u.login = "user#{i}"
	  u.password = u.password_confirmation = 'capture-only-9'
	  u.save!
	  projects.each { |project| Member.create!(principal: u, project: project, roles: [developer]) }
	  puts "#{u.id} #{u.api_key}"
	end
	puts "projects #{projects.map(&:id).join(' ')}"
EOF
bundle exec rails runner "$work/setup.rb" >"$work/users.txt" 2>"$work/setup.log" || { cat "$work/setup.log" >&2; exit 1; }
mapfile -t users < <(grep -v '^projects' "$work/users.txt")
read -r -a projects < <(awk '/^projects/ {$1 = ""; print}' "$work/users.txt")
uid() { echo "${users[$1]}" | cut -d' ' -f1; }
key() { echo "${users[$1]}" | cut -d' ' -f2; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
bundle exec puma -b "tcp://127.0.0.1:$port" -t 1:1 -w 0 -e production config.ru >"$work/puma.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.2; done
redmine_version=$(bundle exec rails runner 'puts Redmine::VERSION.to_s + " (Rails " + Rails.version + ")"' 2>/dev/null)

# --- the requests of both work cycles, a marker statement before each ---
mark() { sqlc "SELECT 'shootout-capture $1'" >/dev/null; }
api() { # api USER METHOD PATH [JSON]
	local code
	code=$(curl -s -o "$work/response.json" -w '%{http_code}' -X "$2" -H "X-Redmine-API-Key: $(key "$1")" \
		-H 'Content-Type: application/json' ${4:+--data "$4"} "http://127.0.0.1:$port$3")
	case $code in 2*) ;; *) echo "redmine-capture: $2 $3 gave HTTP $code: $(head -c 300 "$work/response.json")" >&2; exit 1 ;; esac
}
# the background mail job ends before the next mark: on a busy machine it
# took longer than a fixed half second, and on PostgreSQL it may run on
# the connection the request gave back, so its reads landed in the next
# request; wait until the statement log has not grown for half a second
case $backend in mariadb) statement_log=$work/general.log ;; postgres) statement_log=$work/pg/general.log ;; esac
settle() {
	local before after
	for _ in $(seq 40); do
		before=$(stat -c %s "$statement_log")
		sleep 0.5
		after=$(stat -c %s "$statement_log")
		[ "$before" = "$after" ] && return
	done
}
request() { # request ROUND NAME USER METHOD PATH [JSON]
	local round=$1 name=$2
	shift 2
	mark "round $round request $name"
	api "$@"
	settle
}
newid() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["issue"]["id"])' "$work/response.json"; }

for round in 1 2; do
	project=${projects[round - 1]}
	request $round create.post_issue 0 POST /issues.json \
		"{\"issue\":{\"project_id\":$project,\"subject\":\"Capture root $round\",\"description\":\"A description.\",\"assigned_to_id\":$(uid 1)}}"
	root=$(newid)
	request $round create.post_subtask 0 POST /issues.json \
		"{\"issue\":{\"project_id\":$project,\"subject\":\"Capture child $round\",\"description\":\"A description.\",\"assigned_to_id\":$(uid 1),\"parent_issue_id\":$root}}"
	child=$(newid)
	request $round create.put_notes 2 PUT "/issues/$root.json" '{"issue":{"notes":"A comment."}}'
	request $round create.put_notes_subtask 3 PUT "/issues/$child.json" '{"issue":{"notes":"Another comment."}}'
	request $round process10.get_assigned 1 GET "/issues.json?assigned_to_id=me&status_id=1&limit=10"
	request $round process10.put_in_progress 1 PUT "/issues/$root.json" '{"issue":{"status_id":2}}'
	request $round process10.put_in_progress_subtask 1 PUT "/issues/$child.json" '{"issue":{"status_id":2}}'
	request $round process10.put_resolved 1 PUT "/issues/$root.json" "{\"issue\":{\"status_id\":3,\"assigned_to_id\":$(uid 0)}}"
	request $round process10.put_resolved_subtask 1 PUT "/issues/$child.json" "{\"issue\":{\"status_id\":3,\"assigned_to_id\":$(uid 0)}}"
	# a whole create cycle as shootout's runs it: user 0 creates, assigned
	# to user 2, then ten comments by the other nine members in turn, the
	# first of them again last (worker.go's createCycle)
	request $round cycle.post_issue 0 POST /issues.json \
		"{\"issue\":{\"project_id\":$project,\"subject\":\"Cycle $round\",\"description\":\"A description.\",\"assigned_to_id\":$(uid 2)}}"
	issue=$(newid)
	for k in $(seq 0 9); do
		request $round cycle.put_notes $((1 + k % 9)) PUT "/issues/$issue.json" "{\"issue\":{\"notes\":\"Comment $k.\"}}"
	done
done
mark "end"
sleep 0.3

# --- the request connection's statements per request of round 2 ---
{
	echo "-- captured by scripts/redmine-capture.sh $backend on $(date -u +%Y-%m-%d)"
	echo "-- Redmine $redmine_version, Debian package redmine $(dpkg-query -W -f='${Version}' redmine), $backend $server_version"
	case $backend in
	mariadb) python3 - "$work/general.log" mariadb ;;
	postgres) python3 - "$work/pg/general.log" postgres ;;
	esac <<-'EOF'
	import re, sys
	path, backend = sys.argv[1], sys.argv[2]
	# (connection, statement) in log order
	events = []
	if backend == 'mariadb':
	    # "[time\t]   ID Command\tArgument", continuation lines for multi-line queries
	    head = re.compile(r'^(?:\d{6}\s+\d+:\d+:\d+)?\s+(\d+)\s+(Query|Connect|Quit|Init DB|Prepare|Execute|Close stmt|Field List|Statistics)\t?(.*)$')
	    for line in open(path, encoding='utf-8', errors='replace'):
	        line = line.rstrip('\n')
	        m = head.match(line)
	        if m:
	            events.append([m.group(1), m.group(2), m.group(3)])
	        elif events and events[-1][1] in ('Query', 'Execute'):
	            events[-1][2] += ' ' + line
	    events = [(c, s) for c, k, s in events if k in ('Query', 'Execute')]
	else:
	    # "PID|LOG:  statement: ..." with continuation lines
	    head = re.compile(r'^(\d+)\|(\w+):\s+(.*)$')
	    for line in open(path, encoding='utf-8', errors='replace'):
	        line = line.rstrip('\n')
	        m = head.match(line)
	        if m:
	            msg = m.group(3)
	            for p in ('statement: ', 'execute ', ):
	                if msg.startswith(p):
	                    break
	            else:
	                events.append([m.group(1), None]); continue
	            if msg.startswith('execute '):
	                msg = msg.split(': ', 1)[1]
	            else:
	                msg = msg[len('statement: '):]
	            events.append([m.group(1), msg])
	        elif events and events[-1][1] is not None:
	            events[-1][1] += ' ' + line.strip()
	    events = [(c, s) for c, s in events if s is not None]
	segments, name = [], None
	for conn, stmt in events:
	    m = re.search(r"SELECT 'shootout-capture (.*)'", stmt)
	    if m:
	        name = m.group(1)
	        segments.append((name, []))
	        continue
	    if name:
	        segments[-1][1].append((conn, ' '.join(stmt.split())))
	for name, stmts in segments:
	    if not name.startswith('round 2 request '):
	        continue
	    # the request's connection authenticated the API key; the mail
	    # job's did not
	    conns = [c for c, s in stmts if re.search(r'FROM [`"]?tokens[`"]? WHERE', s)]
	    if not conns:
	        sys.exit('redmine-capture: no API key lookup in ' + name)
	    print('-- request ' + name[len('round 2 request '):])
	    for c, s in stmts:
	        if c == conns[0]:
	            print(s)
	EOF
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "redmine-capture: $(grep -c '^-- request' "$out") requests, $(grep -vc '^--' "$out") statements in $out" >&2
