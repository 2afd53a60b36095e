package redmine

import "shootout/internal/dialect"

// The tables below are Redmine 5.0's, as its migrations leave them on
// MariaDB (column names, types, NOT NULL, defaults and index names; checked
// against a dump of Debian's redmine 5.0.4 after db:migrate), cut to the
// tables the two work cycles read or write. docs/workloads.md lists
// them; `shootout schema --workload redmine --target T` prints the DDL.

func col(name, typ string, notNull bool, def string) dialect.Column {
	return dialect.Column{Name: name, Type: typ, NotNull: notNull, Default: def}
}

func ix(name string, cols ...string) dialect.Index { return dialect.Index{Name: name, Cols: cols} }

func uix(name string, cols ...string) dialect.Index {
	return dialect.Index{Name: name, Cols: cols, Unique: true}
}

// parentIndex is the index Redmine 3.4.0 added (migration
// 20161220091118_add_index_on_issues_parent_id); the redmine3.3 schema
// variant leaves it out to show the seed's slow search by parent.
const parentIndex = "index_issues_on_parent_id"

func tables(variant string) []dialect.Table {
	issueIndexes := []dialect.Index{
		ix("issues_project_id", "project_id"),
		ix("index_issues_on_status_id", "status_id"),
		ix("index_issues_on_category_id", "category_id"),
		ix("index_issues_on_assigned_to_id", "assigned_to_id"),
		ix("index_issues_on_fixed_version_id", "fixed_version_id"),
		ix("index_issues_on_tracker_id", "tracker_id"),
		ix("index_issues_on_priority_id", "priority_id"),
		ix("index_issues_on_author_id", "author_id"),
		ix("index_issues_on_created_on", "created_on"),
		ix("index_issues_on_root_id_and_lft_and_rgt", "root_id", "lft", "rgt"),
	}
	if variant != "redmine3.3" {
		issueIndexes = append(issueIndexes, ix(parentIndex, "parent_id"))
	}
	return []dialect.Table{
		{Name: "settings", Columns: []dialect.Column{
			col("name", "str(255)", true, "''"),
			col("value", "text", false, ""),
			col("updated_on", "datetime", false, ""),
		}, Indexes: []dialect.Index{ix("index_settings_on_name", "name")}},
		{Name: "users", Columns: []dialect.Column{
			col("login", "str(255)", true, "''"),
			col("hashed_password", "str(40)", true, "''"),
			col("firstname", "str(30)", true, "''"),
			col("lastname", "str(255)", true, "''"),
			col("admin", "bool", true, "FALSE"),
			col("status", "int", true, "1"),
			col("last_login_on", "datetime", false, ""),
			col("language", "str(5)", false, "''"),
			col("auth_source_id", "int", false, ""),
			col("created_on", "datetime", false, ""),
			col("updated_on", "datetime", false, ""),
			col("type", "str(255)", false, ""),
			col("mail_notification", "str(255)", true, "''"),
			col("salt", "str(64)", false, ""),
			col("must_change_passwd", "bool", true, "FALSE"),
			col("passwd_changed_on", "datetime", false, ""),
			col("twofa_scheme", "str(255)", false, ""),
			col("twofa_totp_key", "str(255)", false, ""),
			col("twofa_totp_last_used_at", "int", false, ""),
			col("twofa_required", "bool", false, "FALSE"),
		}, Indexes: []dialect.Index{
			ix("index_users_on_id_and_type", "id", "type"),
			ix("index_users_on_auth_source_id", "auth_source_id"),
			ix("index_users_on_type", "type"),
		}},
		{Name: "email_addresses", Columns: []dialect.Column{
			col("user_id", "int", true, ""),
			col("address", "str(255)", true, ""),
			col("is_default", "bool", true, "FALSE"),
			col("notify", "bool", true, "TRUE"),
			col("created_on", "datetime", true, ""),
			col("updated_on", "datetime", true, ""),
		}, Indexes: []dialect.Index{ix("index_email_addresses_on_user_id", "user_id")}},
		{Name: "user_preferences", Columns: []dialect.Column{
			col("user_id", "int", true, "0"),
			col("others", "text", false, ""),
			col("hide_mail", "bool", false, "TRUE"),
			col("time_zone", "str(255)", false, ""),
		}, Indexes: []dialect.Index{ix("index_user_preferences_on_user_id", "user_id")}},
		{Name: "tokens", Columns: []dialect.Column{
			col("user_id", "int", true, "0"),
			col("action", "str(30)", true, "''"),
			col("value", "str(40)", true, "''"),
			col("created_on", "datetime", true, ""),
			col("updated_on", "datetime", false, ""),
		}, Indexes: []dialect.Index{uix("tokens_value", "value"), ix("index_tokens_on_user_id", "user_id")}},
		{Name: "projects", Columns: []dialect.Column{
			col("name", "str(255)", true, "''"),
			col("description", "text", false, ""),
			col("homepage", "str(255)", false, "''"),
			col("is_public", "bool", true, "TRUE"),
			col("parent_id", "int", false, ""),
			col("created_on", "datetime", false, ""),
			col("updated_on", "datetime", false, ""),
			col("identifier", "str(255)", false, ""),
			col("status", "int", true, "1"),
			col("lft", "int", false, ""),
			col("rgt", "int", false, ""),
			col("inherit_members", "bool", true, "FALSE"),
			col("default_version_id", "int", false, ""),
			col("default_assigned_to_id", "int", false, ""),
			col("default_issue_query_id", "int", false, ""),
		}, Indexes: []dialect.Index{ix("index_projects_on_lft", "lft"), ix("index_projects_on_rgt", "rgt")}},
		{Name: "enabled_modules", Columns: []dialect.Column{
			col("project_id", "int", false, ""),
			col("name", "str(255)", true, ""),
		}, Indexes: []dialect.Index{ix("enabled_modules_project_id", "project_id")}},
		{Name: "roles", Columns: []dialect.Column{
			col("name", "str(255)", true, "''"),
			col("position", "int", false, ""),
			col("assignable", "bool", false, "TRUE"),
			col("builtin", "int", true, "0"),
			col("permissions", "text", false, ""),
			col("issues_visibility", "str(30)", true, "'default'"),
			col("users_visibility", "str(30)", true, "'all'"),
			col("time_entries_visibility", "str(30)", true, "'all'"),
			col("all_roles_managed", "bool", true, "TRUE"),
			col("settings", "text", false, ""),
		}},
		{Name: "members", Columns: []dialect.Column{
			col("user_id", "int", true, "0"),
			col("project_id", "int", true, "0"),
			col("created_on", "datetime", false, ""),
			col("mail_notification", "bool", true, "FALSE"),
		}, Indexes: []dialect.Index{
			ix("index_members_on_user_id", "user_id"),
			ix("index_members_on_project_id", "project_id"),
			uix("index_members_on_user_id_and_project_id", "user_id", "project_id"),
		}},
		{Name: "member_roles", Columns: []dialect.Column{
			col("member_id", "int", true, ""),
			col("role_id", "int", true, ""),
			col("inherited_from", "int", false, ""),
		}, Indexes: []dialect.Index{
			ix("index_member_roles_on_member_id", "member_id"),
			ix("index_member_roles_on_role_id", "role_id"),
			ix("index_member_roles_on_inherited_from", "inherited_from"),
		}},
		{Name: "trackers", Columns: []dialect.Column{
			col("name", "str(30)", true, "''"),
			col("description", "str(255)", false, ""),
			col("position", "int", false, ""),
			col("is_in_roadmap", "bool", true, "TRUE"),
			col("fields_bits", "int", false, "0"),
			col("default_status_id", "int", false, ""),
		}},
		{Name: "projects_trackers", NoID: true, Columns: []dialect.Column{
			col("project_id", "int", true, "0"),
			col("tracker_id", "int", true, "0"),
		}, Indexes: []dialect.Index{
			ix("projects_trackers_project_id", "project_id"),
			uix("projects_trackers_unique", "project_id", "tracker_id"),
		}},
		{Name: "issue_statuses", Columns: []dialect.Column{
			col("name", "str(30)", true, "''"),
			col("is_closed", "bool", true, "FALSE"),
			col("position", "int", false, ""),
			col("default_done_ratio", "int", false, ""),
		}, Indexes: []dialect.Index{
			ix("index_issue_statuses_on_position", "position"),
			ix("index_issue_statuses_on_is_closed", "is_closed"),
		}},
		{Name: "workflows", Columns: []dialect.Column{
			col("tracker_id", "int", true, "0"),
			col("old_status_id", "int", true, "0"),
			col("new_status_id", "int", true, "0"),
			col("role_id", "int", true, "0"),
			col("assignee", "bool", true, "FALSE"),
			col("author", "bool", true, "FALSE"),
			col("type", "str(30)", false, ""),
			col("field_name", "str(30)", false, ""),
			col("rule", "str(30)", false, ""),
		}, Indexes: []dialect.Index{
			ix("wkfs_role_tracker_old_status", "role_id", "tracker_id", "old_status_id"),
			ix("index_workflows_on_old_status_id", "old_status_id"),
			ix("index_workflows_on_role_id", "role_id"),
			ix("index_workflows_on_new_status_id", "new_status_id"),
			ix("index_workflows_on_tracker_id", "tracker_id"),
		}},
		{Name: "enumerations", Columns: []dialect.Column{
			col("name", "str(30)", true, "''"),
			col("position", "int", false, ""),
			col("is_default", "bool", true, "FALSE"),
			col("type", "str(255)", false, ""),
			col("active", "bool", true, "TRUE"),
			col("project_id", "int", false, ""),
			col("parent_id", "int", false, ""),
			col("position_name", "str(30)", false, ""),
		}, Indexes: []dialect.Index{
			ix("index_enumerations_on_project_id", "project_id"),
			ix("index_enumerations_on_id_and_type", "id", "type"),
		}},
		{Name: "issues", Columns: []dialect.Column{
			col("tracker_id", "int", true, ""),
			col("project_id", "int", true, ""),
			col("subject", "str(255)", true, "''"),
			col("description", "longtext", false, ""),
			col("due_date", "date", false, ""),
			col("category_id", "int", false, ""),
			col("status_id", "int", true, ""),
			col("assigned_to_id", "int", false, ""),
			col("priority_id", "int", true, ""),
			col("fixed_version_id", "int", false, ""),
			col("author_id", "int", true, ""),
			col("lock_version", "int", true, "0"),
			col("created_on", "datetime", false, ""),
			col("updated_on", "datetime", false, ""),
			col("start_date", "date", false, ""),
			col("done_ratio", "int", true, "0"),
			col("estimated_hours", "float", false, ""),
			col("parent_id", "int", false, ""),
			col("root_id", "int", false, ""),
			col("lft", "int", false, ""),
			col("rgt", "int", false, ""),
			col("is_private", "bool", true, "FALSE"),
			col("closed_on", "datetime", false, ""),
		}, Indexes: issueIndexes},
		{Name: "journals", Columns: []dialect.Column{
			col("journalized_id", "int", true, "0"),
			col("journalized_type", "str(30)", true, "''"),
			col("user_id", "int", true, "0"),
			col("notes", "longtext", false, ""),
			col("created_on", "datetime", true, ""),
			col("private_notes", "bool", true, "FALSE"),
		}, Indexes: []dialect.Index{
			ix("journals_journalized_id", "journalized_id", "journalized_type"),
			ix("index_journals_on_user_id", "user_id"),
			ix("index_journals_on_journalized_id", "journalized_id"),
			ix("index_journals_on_created_on", "created_on"),
		}},
		{Name: "journal_details", Columns: []dialect.Column{
			col("journal_id", "int", true, "0"),
			col("property", "str(30)", true, "''"),
			col("prop_key", "str(30)", true, "''"),
			col("old_value", "longtext", false, ""),
			col("value", "longtext", false, ""),
		}, Indexes: []dialect.Index{ix("journal_details_journal_id", "journal_id")}},
		{Name: "custom_values", Columns: []dialect.Column{
			col("customized_type", "str(30)", true, "''"),
			col("customized_id", "int", true, "0"),
			col("custom_field_id", "int", true, "0"),
			col("value", "longtext", false, ""),
		}, Indexes: []dialect.Index{
			ix("custom_values_customized", "customized_type", "customized_id"),
			ix("index_custom_values_on_custom_field_id", "custom_field_id"),
		}},
		{Name: "issue_relations", Columns: []dialect.Column{
			col("issue_from_id", "int", true, ""),
			col("issue_to_id", "int", true, ""),
			col("relation_type", "str(255)", true, "''"),
			col("delay", "int", false, ""),
		}, Indexes: []dialect.Index{
			ix("index_issue_relations_on_issue_from_id", "issue_from_id"),
			ix("index_issue_relations_on_issue_to_id", "issue_to_id"),
			uix("index_issue_relations_on_issue_from_id_and_issue_to_id", "issue_from_id", "issue_to_id"),
		}},
		{Name: "watchers", Columns: []dialect.Column{
			col("watchable_type", "str(255)", true, "''"),
			col("watchable_id", "int", true, "0"),
			col("user_id", "int", false, ""),
		}, Indexes: []dialect.Index{
			ix("index_watchers_on_user_id", "user_id"),
			ix("index_watchers_on_watchable_id_and_watchable_type", "watchable_id", "watchable_type"),
			ix("watchers_user_id_type", "user_id", "watchable_type"),
		}},
		// Tables the generated tracker leaves empty, as a Redmine without
		// custom fields, groups or time tracking does; every request
		// still reads them (custom fields of the project and tracker, the
		// user's groups, the spent time shown in lists).
		{Name: "custom_fields", Columns: []dialect.Column{
			col("type", "str(30)", true, "''"),
			col("name", "str(30)", true, "''"),
			col("field_format", "str(30)", true, "''"),
			col("possible_values", "text", false, ""),
			col("regexp", "str(255)", false, "''"),
			col("min_length", "int", false, ""),
			col("max_length", "int", false, ""),
			col("is_required", "bool", true, "FALSE"),
			col("is_for_all", "bool", true, "FALSE"),
			col("is_filter", "bool", true, "FALSE"),
			col("position", "int", false, ""),
			col("searchable", "bool", false, "FALSE"),
			col("default_value", "text", false, ""),
			col("editable", "bool", false, "TRUE"),
			col("visible", "bool", true, "TRUE"),
			col("multiple", "bool", false, "FALSE"),
			col("format_store", "text", false, ""),
			col("description", "text", false, ""),
		}, Indexes: []dialect.Index{ix("index_custom_fields_on_id_and_type", "id", "type")}},
		{Name: "custom_fields_trackers", NoID: true, Columns: []dialect.Column{
			col("custom_field_id", "int", true, "0"),
			col("tracker_id", "int", true, "0"),
		}, Indexes: []dialect.Index{uix("index_custom_fields_trackers_on_custom_field_id_and_tracker_id", "custom_field_id", "tracker_id")}},
		{Name: "custom_fields_projects", NoID: true, Columns: []dialect.Column{
			col("custom_field_id", "int", true, "0"),
			col("project_id", "int", true, "0"),
		}, Indexes: []dialect.Index{uix("index_custom_fields_projects_on_custom_field_id_and_project_id", "custom_field_id", "project_id")}},
		{Name: "custom_fields_roles", NoID: true, Columns: []dialect.Column{
			col("custom_field_id", "int", true, ""),
			col("role_id", "int", true, ""),
		}, Indexes: []dialect.Index{uix("custom_fields_roles_ids", "custom_field_id", "role_id")}},
		{Name: "groups_users", NoID: true, Columns: []dialect.Column{
			col("group_id", "int", true, ""),
			col("user_id", "int", true, ""),
		}, Indexes: []dialect.Index{uix("groups_users_ids", "group_id", "user_id")}},
		{Name: "time_entries", Columns: []dialect.Column{
			col("project_id", "int", true, ""),
			col("author_id", "int", false, ""),
			col("user_id", "int", true, ""),
			col("issue_id", "int", false, ""),
			col("hours", "float", true, ""),
			col("comments", "str(1024)", false, ""),
			col("activity_id", "int", true, ""),
			col("spent_on", "date", true, ""),
			col("tyear", "int", true, ""),
			col("tmonth", "int", true, ""),
			col("tweek", "int", true, ""),
			col("created_on", "datetime", true, ""),
			col("updated_on", "datetime", true, ""),
		}, Indexes: []dialect.Index{
			ix("time_entries_project_id", "project_id"),
			ix("time_entries_issue_id", "issue_id"),
			ix("index_time_entries_on_activity_id", "activity_id"),
			ix("index_time_entries_on_user_id", "user_id"),
			ix("index_time_entries_on_created_on", "created_on"),
		}},
	}
}
