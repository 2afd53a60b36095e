#!/bin/bash
# redmine-dump-fixture.sh [OUT]: makes internal/workload/dump/testdata/redmine.sql.gz,
# a real Rails application's mariadb-dump for the test that loads it into
# every MariaDB engine: Debian's Redmine after its own `rake db:migrate`
# (utf8mb4, VARCHAR(255) primary keys in schema_migrations and
# ar_internal_metadata, as every Rails schema has), its default data, and
# a few users, projects, issues and comments made through Redmine's models.
#
# Everything is private, as in redmine-capture.sh: a server in a temporary
# directory on a unix socket, a Redmine instance (Debian's multi-tenancy,
# REDMINE_INSTANCE) under /var/lib/redmine/shootout-dump-PID; all of it is
# removed on exit. Needs root and: redmine ruby-mysql2.
set -euo pipefail

out=$(realpath -m "${1:-internal/workload/dump/testdata/redmine.sql.gz}")
[ "$(id -u)" = 0 ] || { echo "redmine-dump-fixture.sh: needs root (Redmine's instance directory)" >&2; exit 2; }
[ -e /usr/share/redmine/config.ru ] || { echo "redmine-dump-fixture.sh: Redmine missing; fix: apt-get install -y redmine ruby-mysql2" >&2; exit 2; }

work=$(mktemp -d /tmp/shootout-redmine-dump.XXXXXX)
chmod 755 "$work"
instance=shootout-dump-$$
inst=/var/lib/redmine/$instance
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -rf "$inst" "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sock=$work/mysqld.sock
mariadb-install-db --no-defaults --datadir="$work/data" --auth-root-authentication-method=normal \
	--skip-test-db --user=root >"$work/install.log" 2>&1
mariadbd --no-defaults --datadir="$work/data" --socket="$sock" --skip-networking --user=root \
	--log-error="$work/error.log" --pid-file="$work/mysqld.pid" &
pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
mariadb --no-defaults -S "$sock" -u root -e "CREATE DATABASE redmine CHARACTER SET utf8mb4"

mkdir -p "$inst"/{config,log,tmp/cache,files,public}
cat >"$inst/config/database.yml" <<-EOF
production:
  adapter: mysql2
  database: redmine
  socket: $sock
  username: root
  encoding: utf8mb4
EOF
head -c 48 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$inst/config/secret_key.txt"
# Redmine's Gemfile picks the adapters' gems from every instance's
# database.yml; the lock file stays private
echo "eval_gemfile '/usr/share/redmine/Gemfile'" >"$work/Gemfile"
export BUNDLE_GEMFILE=$work/Gemfile REDMINE_INSTANCE=$instance RAILS_ENV=production
cd /usr/share/redmine
bundle exec rake db:migrate >"$work/migrate.log" 2>&1 || { tail -20 "$work/migrate.log" >&2; exit 1; }
bundle exec rake redmine:load_default_data REDMINE_LANG=en >>"$work/migrate.log" 2>&1

# some of a tracker's life, through Redmine's own models (callbacks,
# nested sets, journals, watchers), so the rows are Redmine's
cat >"$work/data.rb" <<-'EOF'
	developer = Role.find_by!(name: 'Developer')
	manager = Role.find_by!(name: 'Manager')
	users = 6.times.map do |i|
	  u = User.new(firstname: 'User', lastname: "Nº #{i}", mail: "user#{i}@fixture.invalid", language: 'en')
	  u.login = "user#{i}"
	  u.password = u.password_confirmation = 'fixture-only-9'
	  u.save!
	  u
	end
	projects = [['Website', 'website'], ['Ünïcode tools', 'unicode-tools']].map do |name, identifier|
	  p = Project.new(name: name, identifier: identifier, description: "The #{name} project.", is_public: true)
	  p.enabled_module_names = %w[issue_tracking wiki news]
	  p.trackers = Tracker.all
	  p.save!
	  users.each_with_index { |u, i| Member.create!(principal: u, project: p, roles: [i.zero? ? manager : developer]) }
	  p
	end
	statuses = IssueStatus.order(:position).to_a
	projects.each_with_index do |p, pi|
	  8.times do |n|
	    author = users[(n + pi) % users.size]
	    User.current = author
	    issue = Issue.new(project: p, tracker: p.trackers.first, author: author,
	                      subject: "Issue #{n + 1} of #{p.name}", description: "Steps to reproduce: #{'step ' * (n + 3)}",
	                      assigned_to: users[(n + 1) % users.size], priority: IssuePriority.default)
	    issue.parent_issue_id = p.issues.first.id if n.odd? && p.issues.any?
	    issue.save!
	    3.times do |c|
	      commenter = users[(n + c + 2) % users.size]
	      User.current = commenter
	      issue = Issue.find(issue.id)
	      journal = issue.init_journal(commenter, "Comment #{c + 1}: looked at it — ok ✓")
	      issue.status = statuses[[c + 1, statuses.size - 1].min] if c == 2
	      issue.save!
	      raise "journal not saved: #{journal.errors.full_messages.inspect}" if journal.new_record?
	    end
	  end
	  p.wiki.save! if p.wiki.new_record?
	  page = WikiPage.new(wiki: p.wiki, title: 'Start')
	  page.content = WikiContent.new(page: page, text: "h1. #{p.name}\n\nWelcome.", author: users.first)
	  page.save!
	  News.create!(project: p, author: users.first, title: "#{p.name} opens", description: 'First release.')
	end
	puts "#{User.count} users, #{Project.count} projects, #{Issue.count} issues, #{Journal.count} journals"
EOF
bundle exec rails runner "$work/data.rb" >"$work/data.log" 2>&1 || { tail -20 "$work/data.log" >&2; exit 1; }
echo "redmine-dump-fixture: $(tail -1 "$work/data.log")" >&2

mariadb-dump --no-defaults -S "$sock" -u root --skip-dump-date redmine | gzip -9n >"$out"
echo "redmine-dump-fixture: wrote $out: $(stat -c %s "$out") bytes gzipped, $(zcat "$out" | grep -c '^CREATE TABLE') tables, $(zcat "$out" | grep -c '^INSERT') INSERT statements" >&2
