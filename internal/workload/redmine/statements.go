package redmine

import (
	"strings"

	"shootout/internal/dialect"
)

// The statements below are those Redmine 5.0's ActiveRecord models issue
// for the REST API requests the two work cycles make (docs/workloads.md
// lists them per request, in order). `issues.*` is spelled out as the
// column list so every dialect reads the same columns.

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

// issueCols are the columns the workload reads back from a SELECT of
// issues.*; their positions in columnsOf("issues").
var issueCols = map[string]int{}

// workflowNewStatus is new_status_id's position in a workflows row.
var workflowNewStatus int

func init() {
	for i, c := range strings.Split(columnsOf("issues"), ", ") {
		issueCols[strings.TrimPrefix(c, "issues.")] = i
	}
	for i, c := range strings.Split(columnsOf("workflows"), ", ") {
		if c == "workflows.new_status_id" {
			workflowNewStatus = i
		}
	}
}

// stmtID names each statement; the names appear in results and reports.
type stmtID int

const (
	sSettingsCache stmtID = iota
	sTokenFind
	sUserFind
	sPrefFind
	sProjectFind
	sModules
	sRoles
	sTrackers
	sStatusFind
	sDefaultPriority
	sAssignable
	sIssueFind
	sIssueInsert
	sIssueSetNested
	sIssueLockTree
	sParentNested
	sSiblingsMaxRgt
	sIssueShift
	sAssignableRoles
	sCustomValues
	sRelationsFrom
	sPriorities
	sWorkflows
	sAllowedStatuses
	sIssueTouch
	sIssueUpdate
	sJournalInsert
	sDetailInsert
	sCountAssigned
	sListAssigned
	sChildrenMaxPriority
	sChildrenMinStart
	sChildrenMaxDue
	sChildren
	sTotalEstimated
	sParentUpdate
	nStatements
)

// visibleIssues is the WHERE clause Redmine 5.0.4's IssueQuery was seen
// to build for "assigned to me" (the API's default open-status filter
// included): project active, issue tracking enabled, private issues only
// their author's or assignee's.
const visibleIssues = `projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name = 'issue_tracking')
  AND (issues.is_private = FALSE OR issues.author_id = ? OR issues.assigned_to_id IN (?))
  AND issues.status_id IN (SELECT issue_statuses.id FROM issue_statuses WHERE issue_statuses.is_closed = FALSE) AND issues.assigned_to_id IN (?)`

func statementTexts(d dialect.Dialect) [nStatements]struct{ name, sql string } {
	issues := columnsOf("issues")
	return [nStatements]struct{ name, sql string }{
		sSettingsCache:   {"settings.check_cache", "SELECT MAX(settings.updated_on) FROM settings"},
		sTokenFind:       {"tokens.find_api_key", "SELECT " + columnsOf("tokens") + " FROM tokens WHERE tokens.action = 'api' AND tokens.value = ? LIMIT 1"},
		sUserFind:        {"users.find_active", "SELECT " + columnsOf("users") + " FROM users WHERE users.type IN ('User', 'AnonymousUser') AND users.status = 1 AND users.id = ? LIMIT 1"},
		sPrefFind:        {"user_preferences.find", "SELECT " + columnsOf("user_preferences") + " FROM user_preferences WHERE user_preferences.user_id = ? LIMIT 1"},
		sProjectFind:     {"projects.find", "SELECT " + columnsOf("projects") + " FROM projects WHERE projects.id = ? LIMIT 1"},
		sModules:         {"enabled_modules.of_project", "SELECT enabled_modules.name FROM enabled_modules WHERE enabled_modules.project_id = ?"},
		sRoles:           {"roles.of_member", "SELECT " + columnsOf("roles") + " FROM roles INNER JOIN member_roles ON roles.id = member_roles.role_id INNER JOIN members ON member_roles.member_id = members.id INNER JOIN projects ON projects.id = members.project_id WHERE projects.status <> 9 AND members.user_id = ? AND members.project_id = ?"},
		sTrackers:        {"trackers.of_project", "SELECT " + columnsOf("trackers") + " FROM trackers INNER JOIN projects_trackers ON trackers.id = projects_trackers.tracker_id WHERE projects_trackers.project_id = ? ORDER BY trackers.position ASC"},
		sStatusFind:      {"issue_statuses.find", "SELECT " + columnsOf("issue_statuses") + " FROM issue_statuses WHERE issue_statuses.id = ? LIMIT 1"},
		sDefaultPriority: {"enumerations.default_priority", "SELECT " + columnsOf("enumerations") + " FROM enumerations WHERE enumerations.type = 'IssuePriority' AND enumerations.is_default = TRUE ORDER BY enumerations.position ASC LIMIT 1"},
		sAssignable: {"users.assignable", "SELECT DISTINCT " + columnsOf("users") + ` FROM users INNER JOIN members ON members.user_id = users.id
  INNER JOIN member_roles ON member_roles.member_id = members.id INNER JOIN roles ON roles.id = member_roles.role_id
  WHERE users.status = 1 AND members.project_id = ? AND roles.assignable = TRUE`},
		sIssueFind: {"issues.find", "SELECT " + issues + " FROM issues WHERE issues.id = ? LIMIT 1"},
		sIssueInsert: {"issues.insert", `INSERT INTO issues (tracker_id, project_id, subject, description, status_id, assigned_to_id, priority_id,
  author_id, lock_version, created_on, updated_on, start_date, done_ratio, parent_id, root_id, lft, rgt, is_private)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, 0, ?, ?, ?, ?, FALSE)` + d.Returning()},
		sIssueSetNested: {"issues.set_nested_set", "UPDATE issues SET root_id = ?, lft = 1, rgt = 2, lock_version = COALESCE(lock_version, 0) + 1 WHERE issues.id = ?"},
		sIssueLockTree:  {"issues.lock_tree", "SELECT issues.id FROM issues WHERE issues.root_id IN (SELECT issues.root_id FROM issues WHERE issues.id IN (?)) ORDER BY issues.id ASC" + d.ForUpdate()},
		sParentNested:   {"issues.nested_set_of", "SELECT issues.root_id, issues.lft, issues.rgt FROM issues WHERE issues.id = ? LIMIT 1"},
		sSiblingsMaxRgt: {"issues.children_max_rgt", "SELECT MAX(issues.rgt) FROM issues WHERE issues.root_id = ? AND issues.parent_id = ?"},
		sIssueShift: {"issues.shift_nested_set", `UPDATE issues SET lft = CASE WHEN lft >= ? THEN lft + 2 ELSE lft END,
  rgt = CASE WHEN rgt >= ? THEN rgt + 2 ELSE rgt END WHERE issues.root_id = ? AND (issues.lft >= ? OR issues.rgt >= ?)`},
		sAssignableRoles: {"roles.assignable", "SELECT " + columnsOf("roles") + " FROM roles WHERE roles.assignable = TRUE"},
		sCustomValues:    {"custom_values.of_issue", "SELECT " + columnsOf("custom_values") + " FROM custom_values WHERE custom_values.customized_id = ? AND custom_values.customized_type = 'Issue'"},
		sRelationsFrom:   {"issue_relations.from", "SELECT " + columnsOf("issue_relations") + " FROM issue_relations WHERE issue_relations.issue_from_id = ?"},
		sPriorities:      {"enumerations.priorities", "SELECT " + columnsOf("enumerations") + " FROM enumerations WHERE enumerations.type = 'IssuePriority' ORDER BY enumerations.position ASC"},
		sWorkflows:       {"workflows.transitions", "SELECT " + columnsOf("workflows") + " FROM workflows WHERE workflows.type = 'WorkflowTransition' AND workflows.role_id = ? AND workflows.tracker_id = ? AND workflows.old_status_id = ?"},
		sAllowedStatuses: {"issue_statuses.allowed", "SELECT " + columnsOf("issue_statuses") + ` FROM issue_statuses WHERE issue_statuses.id IN
  (SELECT workflows.new_status_id FROM workflows WHERE workflows.type = 'WorkflowTransition' AND workflows.role_id = ? AND workflows.tracker_id = ? AND workflows.old_status_id = ?)
  ORDER BY issue_statuses.position ASC`},
		sIssueTouch: {"issues.update_touch", "UPDATE issues SET updated_on = ?, lock_version = ? WHERE issues.id = ? AND issues.lock_version = ?"},
		sIssueUpdate: {"issues.update_status", `UPDATE issues SET status_id = ?, assigned_to_id = ?, done_ratio = ?, closed_on = ?, updated_on = ?, lock_version = ?
  WHERE issues.id = ? AND issues.lock_version = ?`},
		sJournalInsert: {"journals.insert", "INSERT INTO journals (journalized_id, journalized_type, user_id, notes, created_on, private_notes) VALUES (?, 'Issue', ?, ?, ?, FALSE)" + d.Returning()},
		sDetailInsert:  {"journal_details.insert", "INSERT INTO journal_details (journal_id, property, prop_key, old_value, value) VALUES (?, 'attr', ?, ?, ?)"},
		sCountAssigned: {"issues.count_assigned_to_me", `SELECT COUNT(*) FROM issues INNER JOIN projects ON projects.id = issues.project_id
  INNER JOIN issue_statuses ON issue_statuses.id = issues.status_id WHERE ` + visibleIssues},
		sListAssigned: {"issues.list_assigned_to_me", "SELECT " + issues + ` FROM issues INNER JOIN projects ON projects.id = issues.project_id
  INNER JOIN issue_statuses ON issue_statuses.id = issues.status_id WHERE ` + visibleIssues + ` ORDER BY issues.id DESC LIMIT 10`},
		sChildrenMaxPriority: {"issues.children_max_priority", `SELECT MAX(enumerations.position) FROM issues
  INNER JOIN issue_statuses ON issue_statuses.id = issues.status_id
  INNER JOIN enumerations ON enumerations.id = issues.priority_id AND enumerations.type = 'IssuePriority'
  WHERE issues.parent_id = ? AND issue_statuses.is_closed = FALSE`},
		sChildrenMinStart: {"issues.children_min_start", "SELECT MIN(issues.start_date) FROM issues WHERE issues.parent_id = ?"},
		sChildrenMaxDue:   {"issues.children_max_due", "SELECT MAX(issues.due_date) FROM issues WHERE issues.parent_id = ?"},
		sChildren:         {"issues.children", "SELECT " + issues + " FROM issues WHERE issues.parent_id = ? ORDER BY issues.lft ASC"},
		sTotalEstimated:   {"issues.total_estimated_hours", "SELECT SUM(issues.estimated_hours) FROM issues WHERE issues.root_id = ? AND issues.lft >= ? AND issues.rgt <= ?"},
		sParentUpdate:     {"issues.update_parent_derived", "UPDATE issues SET priority_id = ?, done_ratio = ?, updated_on = ?, lock_version = ? WHERE issues.id = ? AND issues.lock_version = ?"},
	}
}
