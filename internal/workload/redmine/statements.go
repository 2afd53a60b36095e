package redmine

import (
	"fmt"
	"strconv"
	"strings"
)

// The statements below are those Debian's Redmine 5.0.4 sends for the REST
// requests of the two work cycles, as testdata/capture-*.sql recorded them
// (scripts/redmine-capture.sh): the same tables, joins, conditions and
// order, `t.*` spelled out as the table's columns so every dialect reads
// the same ones. docs/workloads.md lists them per request.

func columnsOf(table string) string {
	for _, t := range tables("redmine5") {
		if t.Name != table {
			continue
		}
		var cols []string
		if !t.NoID {
			cols = append(cols, table+".id")
		}
		for _, c := range t.Columns {
			cols = append(cols, table+"."+c.Name)
		}
		return strings.Join(cols, ", ")
	}
	panic("no table " + table)
}

// issueCols are the positions of the columns of an issues row.
var issueCols = map[string]int{}

// prefOthers is the position of user_preferences.others in its row.
var prefOthers int

func init() {
	for i, c := range strings.Split(columnsOf("issues"), ", ") {
		issueCols[strings.TrimPrefix(c, "issues.")] = i
	}
	for i, c := range strings.Split(columnsOf("user_preferences"), ", ") {
		if c == "user_preferences.others" {
			prefOthers = i
		}
	}
}

// groupNonMember is the id of the built-in "Non member users" group
// (data.go), which Redmine's visibility clauses name beside the user.
const groupNonMember = 4

func sel(table, rest string) string {
	return "SELECT " + columnsOf(table) + " FROM " + table + " " + rest
}

// Statements with fixed text, by the name results and reports show.
var fixed = map[string]string{
	"connection.verify":                 "SELECT 1",
	"settings.check_cache":              "SELECT MAX(settings.updated_on) FROM settings",
	"tokens.find_api_key":               sel("tokens", "WHERE tokens.action = 'api' AND tokens.value = ? LIMIT 1"),
	"users.find_active":                 sel("users", "WHERE users.type IN ('User', 'AnonymousUser') AND users.id = ? LIMIT 1"),
	"users.find":                        sel("users", "WHERE users.id = ? LIMIT 1"),
	"users.group_non_member":            sel("users", "WHERE users.type = 'GroupNonMember' ORDER BY id LIMIT 1"),
	"users.group_non_member_id":         "SELECT users.id FROM users WHERE users.type = 'GroupNonMember' LIMIT 1",
	"users.watchers":                    sel("users", "INNER JOIN watchers ON users.id = watchers.user_id WHERE watchers.watchable_id = ? AND watchers.watchable_type = 'Issue' AND users.status = 1"),
	"user_preferences.find":             sel("user_preferences", "WHERE user_preferences.user_id = ? LIMIT 1"),
	"user_preferences.update":           "UPDATE user_preferences SET others = ? WHERE user_preferences.id = ?",
	"groups_users.of_user":              "SELECT users.id FROM users INNER JOIN groups_users ON users.id = groups_users.group_id WHERE users.type IN ('Group', 'GroupBuiltin', 'GroupAnonymous', 'GroupNonMember') AND groups_users.user_id = ?",
	"roles.of_user":                     "SELECT DISTINCT " + columnsOf("roles") + " FROM roles INNER JOIN member_roles ON member_roles.role_id = roles.id INNER JOIN members ON members.id = member_roles.member_id INNER JOIN projects ON projects.id = members.project_id WHERE (projects.status <> 9) AND members.user_id = ?",
	"roles.builtin_non_member":          sel("roles", "WHERE roles.builtin = 1 LIMIT 1"),
	"roles.find":                        sel("roles", "WHERE roles.id = ?"),
	"roles.of_member":                   "SELECT DISTINCT " + columnsOf("roles") + " FROM roles INNER JOIN member_roles ON roles.id = member_roles.role_id WHERE member_roles.member_id = ?",
	"roles.assignable":                  sel("roles", "WHERE roles.assignable = TRUE"),
	"members.roles_by_project":          "SELECT members.user_id, role_id, members.project_id FROM members INNER JOIN projects ON projects.id = members.project_id INNER JOIN member_roles ON member_roles.member_id = members.id WHERE (projects.status <> 9) AND (members.user_id = ? OR (projects.is_public = TRUE AND members.user_id = ?))",
	"members.of_user_in_project":        sel("members", "INNER JOIN projects ON projects.id = members.project_id WHERE members.user_id = ? AND projects.status <> 9 AND members.project_id = ? ORDER BY members.id ASC LIMIT 1"),
	"members.of_project_active_users":   sel("members", "INNER JOIN users ON users.id = members.user_id WHERE members.project_id = ? AND users.type = 'User' AND users.status = 1"),
	"members.any_of_user":               "SELECT 1 AS one FROM members INNER JOIN projects ON projects.id = members.project_id WHERE members.user_id = ? AND projects.status <> 9 LIMIT 1",
	"projects.find":                     sel("projects", "WHERE projects.id = ? LIMIT 1"),
	"enabled_modules.of_project":        "SELECT enabled_modules.name FROM enabled_modules WHERE enabled_modules.project_id = ?",
	"trackers.find":                     sel("trackers", "WHERE trackers.id = ? LIMIT 1"),
	"trackers.of_project":               sel("trackers", "INNER JOIN projects_trackers ON trackers.id = projects_trackers.tracker_id WHERE projects_trackers.project_id = ? ORDER BY trackers.position ASC"),
	"trackers.first_of_project":         sel("trackers", "INNER JOIN projects_trackers ON trackers.id = projects_trackers.tracker_id WHERE projects_trackers.project_id = ? ORDER BY trackers.position ASC LIMIT 1"),
	"trackers.in_project":               "SELECT 1 AS one FROM trackers INNER JOIN projects_trackers ON trackers.id = projects_trackers.tracker_id WHERE projects_trackers.project_id = ? AND trackers.id = ? LIMIT 1",
	"issue_statuses.find":               sel("issue_statuses", "WHERE issue_statuses.id = ? LIMIT 1"),
	"enumerations.default_priority":     sel("enumerations", "WHERE enumerations.type = 'IssuePriority' AND enumerations.is_default = TRUE ORDER BY enumerations.position ASC LIMIT 1"),
	"enumerations.default_activity":     sel("enumerations", "WHERE enumerations.type = 'TimeEntryActivity' AND enumerations.is_default = TRUE ORDER BY enumerations.position ASC LIMIT 1"),
	"enumerations.priority_find":        sel("enumerations", "WHERE enumerations.type = 'IssuePriority' AND enumerations.id = ? ORDER BY enumerations.position ASC LIMIT 1"),
	"enumerations.priority_at":          sel("enumerations", "WHERE enumerations.type = 'IssuePriority' AND enumerations.position = ? ORDER BY enumerations.position ASC LIMIT 1"),
	"enumerations.priorities":           sel("enumerations", "WHERE enumerations.type = 'IssuePriority' ORDER BY enumerations.position ASC"),
	"workflows.permissions":             sel("workflows", "WHERE workflows.type = 'WorkflowPermission' AND workflows.tracker_id = ? AND workflows.old_status_id = ? AND workflows.role_id = ?"),
	"custom_fields.of_project":          sel("custom_fields", "WHERE custom_fields.type = 'IssueCustomField' AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = ?)) ORDER BY custom_fields.position ASC"),
	"custom_fields.of_tracker":          sel("custom_fields", "INNER JOIN custom_fields_trackers ON custom_fields.id = custom_fields_trackers.custom_field_id WHERE custom_fields.type = 'IssueCustomField' AND custom_fields_trackers.tracker_id = ?"),
	"custom_fields.visible_filters":     sel("custom_fields", "WHERE custom_fields.type = 'IssueCustomField' AND (custom_fields.visible = TRUE OR custom_fields.id IN (SELECT DISTINCT cfr.custom_field_id FROM members m INNER JOIN member_roles mr ON mr.member_id = m.id INNER JOIN custom_fields_roles cfr ON cfr.role_id = mr.role_id WHERE m.user_id = ?)) AND custom_fields.is_filter = TRUE ORDER BY custom_fields.position ASC"),
	"custom_fields.visible_any_filters": sel("custom_fields", "WHERE (custom_fields.visible = TRUE OR custom_fields.id IN (SELECT DISTINCT cfr.custom_field_id FROM members m INNER JOIN member_roles mr ON mr.member_id = m.id INNER JOIN custom_fields_roles cfr ON cfr.role_id = mr.role_id WHERE m.user_id = ?)) AND custom_fields.is_filter = TRUE"),
	"custom_fields.visible":             sel("custom_fields", "WHERE custom_fields.type = 'IssueCustomField' AND (custom_fields.visible = TRUE OR custom_fields.id IN (SELECT DISTINCT cfr.custom_field_id FROM members m INNER JOIN member_roles mr ON mr.member_id = m.id INNER JOIN custom_fields_roles cfr ON cfr.role_id = mr.role_id WHERE m.user_id = ?)) ORDER BY custom_fields.position ASC"),
	"custom_values.of_issue":            sel("custom_values", "WHERE custom_values.customized_id = ? AND custom_values.customized_type = 'Issue'"),
	"issue_relations.from":              sel("issue_relations", "WHERE issue_relations.issue_from_id = ?"),
	"issue_relations.to":                sel("issue_relations", "WHERE issue_relations.issue_to_id = ?"),
	"issues.find":                       sel("issues", "WHERE issues.id = ? LIMIT 1"),
	"issues.self_and_ancestors":         sel("issues", "WHERE issues.root_id = ? AND (issues.lft <= ? AND issues.rgt >= ?) ORDER BY issues.lft ASC"),
	"issues.self_and_descendants":       sel("issues", "WHERE issues.root_id = ? AND (issues.lft >= ? AND issues.rgt <= ?) ORDER BY issues.lft ASC"),
	"issues.open_descendant":            "SELECT 1 AS one FROM issues INNER JOIN issue_statuses ON issue_statuses.id = issues.status_id WHERE issues.root_id = ? AND (issues.lft > ? AND issues.rgt < ?) AND issue_statuses.is_closed = FALSE LIMIT 1",
	"issues.closed_ancestor":            "SELECT 1 AS one FROM issues INNER JOIN issue_statuses ON issue_statuses.id = issues.status_id WHERE issues.root_id = ? AND (issues.lft < ? AND issues.rgt > ?) AND issue_statuses.is_closed = TRUE LIMIT 1",
	"issues.nested_set_of":              "SELECT issues.root_id, issues.lft, issues.rgt FROM issues WHERE issues.id = ? LIMIT 1",
	"issues.children_max_rgt":           "SELECT MAX(issues.rgt) FROM issues WHERE issues.root_id = ? AND issues.parent_id = ?",
	"issues.shift_nested_set": `UPDATE issues SET lft = CASE WHEN lft >= ? THEN lft + 2 ELSE lft END,
  rgt = CASE WHEN rgt >= ? THEN rgt + 2 ELSE rgt END WHERE issues.root_id = ? AND (lft >= ? OR rgt >= ?)`,
	"issues.set_nested_set": "UPDATE issues SET root_id = ?, lft = 1, rgt = 2, lock_version = COALESCE(lock_version, 0) + 1 WHERE issues.id = ?",
	"issues.children_max_priority": `SELECT MAX(enumerations.position) FROM issues
  INNER JOIN issue_statuses ON issue_statuses.id = issues.status_id
  INNER JOIN enumerations ON enumerations.id = issues.priority_id AND enumerations.type = 'IssuePriority'
  WHERE issues.parent_id = ? AND issue_statuses.is_closed = FALSE`,
	"issues.children_min_start": "SELECT MIN(issues.start_date) FROM issues WHERE issues.parent_id = ?",
	"issues.children_max_due":   "SELECT MAX(issues.due_date) FROM issues WHERE issues.parent_id = ?",
	"issues.children":           sel("issues", "WHERE issues.parent_id = ? ORDER BY issues.lft ASC"),
	"journals.insert":           "INSERT INTO journals (journalized_id, journalized_type, user_id, notes, created_on, private_notes) VALUES (?, 'Issue', ?, ?, ?, FALSE)",
	"journal_details.insert":    "INSERT INTO journal_details (journal_id, property, prop_key, old_value, value) VALUES (?, 'attr', ?, ?, ?)",
}

// The statements below carry lists in their text, as Rails writes them:
// the user's projects, the ids of an eager load.

func inList(ids []int) string {
	if len(ids) == 0 {
		return "NULL" // Rails' "1=0": matches nothing
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}

// visibleProjects is Redmine's Project.allowed_to_condition for a member of
// projects: active, the module enabled, public ones they are not a member
// of (with extra on those) or their own (with extra). Its text names the
// user and their projects.
func visibleProjects(user int, projects []int, module, extra string) string {
	if extra != "" {
		extra = " AND (" + extra + ")"
	}
	return fmt.Sprintf("((projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name = '%s')) AND "+
		"(((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (%d,%d)))%s) OR (projects.id IN (%s)%s)))",
		module, user, groupNonMember, extra, inList(projects), extra)
}

// visibleIssues adds Redmine's private-issue rule to visibleProjects.
func visibleIssues(user int, projects []int) string {
	return visibleProjects(user, projects, "issue_tracking", fmt.Sprintf("issues.is_private = FALSE OR issues.author_id = %d OR issues.assigned_to_id IN (%d)", user, user))
}

// allowedStatuses is the workflow's statuses from old for a role and
// tracker, with Redmine's author/assignee condition.
func allowedStatuses(old, role, tracker int, author, assignee bool) string {
	cond := "(author = FALSE AND assignee = FALSE)"
	if author || assignee {
		cond = fmt.Sprintf("(author = %s OR assignee = %s)", sqlBool(author), sqlBool(assignee))
	}
	return fmt.Sprintf("SELECT DISTINCT %s FROM issue_statuses INNER JOIN workflows ON workflows.new_status_id = issue_statuses.id AND workflows.type = 'WorkflowTransition' "+
		"WHERE workflows.old_status_id = %d AND workflows.role_id = %d AND workflows.tracker_id = %d AND %s", columnsOf("issue_statuses"), old, role, tracker, cond)
}

func sqlBool(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// eagerIssueColumns is the column list of the issue list's eager load:
// issues, their statuses and projects, aliased t0_r0... as Rails does.
func eagerIssueColumns() string {
	var out []string
	for t, table := range []string{"issues", "issue_statuses", "projects"} {
		for c, col := range strings.Split(columnsOf(table), ", ") {
			out = append(out, fmt.Sprintf("%s AS t%d_r%d", col, t, c))
		}
	}
	return strings.Join(out, ", ")
}

// idsCondition is Rails' "= x" for one id and "IN (x, y)" for several.
func idsCondition(col string, ids []int) string {
	if len(ids) == 1 {
		return fmt.Sprintf("%s = %d", col, ids[0])
	}
	return col + " IN (" + inList(ids) + ")"
}
