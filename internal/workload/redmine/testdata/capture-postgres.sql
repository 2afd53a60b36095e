-- captured by scripts/redmine-capture.sh postgres on 2026-11-28
-- Redmine 5.0.4.stable (Rails 6.1.7.10), Debian package redmine 5.0.4-5+deb12u1, postgres 15.18 (Debian 15.18-0+deb12u1)
-- request create.post_issue
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "member_roles"."role_id" = "roles"."id" INNER JOIN "members" ON "members"."id" = "member_roles"."member_id" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE (projects.status <> 9) AND "members"."user_id" = 5
SELECT "roles".* FROM "roles" WHERE "roles"."builtin" = $1 LIMIT $2
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."type" = $1 ORDER BY id LIMIT $2
SELECT "users"."id" FROM "users" WHERE "users"."type" = $1 LIMIT $2
SELECT "members"."user_id", "role_id", "members"."project_id" FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" INNER JOIN "member_roles" ON "member_roles"."member_id" = "members"."id" WHERE (projects.status <> 9) AND (members.user_id = 5 OR (projects.is_public = TRUE AND members.user_id = 3))
SELECT "roles".* FROM "roles" WHERE "roles"."id" = $1
SELECT 1 AS one FROM "projects" WHERE (((projects.status = 1 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='issue_tracking')) AND ((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (5,3))) OR projects.id IN (1,2)))) AND (projects.id IN (SELECT DISTINCT project_id FROM projects_trackers)) AND "projects"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "trackers".* FROM "trackers" INNER JOIN "projects_trackers" ON "trackers"."id" = "projects_trackers"."tracker_id" WHERE "projects_trackers"."project_id" = $1 ORDER BY "trackers"."position" ASC LIMIT $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = TRUE OR assignee = FALSE)
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT 1 AS one FROM "trackers" INNER JOIN "projects_trackers" ON "trackers"."id" = "projects_trackers"."tracker_id" WHERE "projects_trackers"."project_id" = $1 AND "trackers"."id" = $2 LIMIT $3
SELECT "roles".* FROM "roles" WHERE "roles"."assignable" = $1
SELECT DISTINCT "users".* FROM "users" INNER JOIN "members" ON "members"."user_id" = "users"."id" INNER JOIN "member_roles" ON "member_roles"."member_id" = "members"."id" INNER JOIN "roles" ON "roles"."id" = "member_roles"."role_id" WHERE "users"."status" = $1 AND "users"."type" = $2 AND "members"."project_id" = $3 AND "roles"."assignable" = $4 AND "roles"."id" IN ($5, $6, $7, $8, $9) ORDER BY users.type DESC, users.firstname, users.lastname, users.id
INSERT INTO "issues" ("tracker_id", "project_id", "subject", "description", "status_id", "assigned_to_id", "priority_id", "author_id", "created_on", "updated_on", "start_date", "lock_version") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING "id"
UPDATE "issues" SET "root_id" = $1, "lft" = $2, "rgt" = $3, "lock_version" = COALESCE("lock_version", 0) + $4 WHERE "issues"."id" = $5
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_from_id" = $1
COMMIT
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
-- request create.post_subtask
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "member_roles"."role_id" = "roles"."id" INNER JOIN "members" ON "members"."id" = "member_roles"."member_id" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE (projects.status <> 9) AND "members"."user_id" = 5
SELECT "roles".* FROM "roles" WHERE "roles"."builtin" = $1 LIMIT $2
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."type" = $1 ORDER BY id LIMIT $2
SELECT "users"."id" FROM "users" WHERE "users"."type" = $1 LIMIT $2
SELECT "members"."user_id", "role_id", "members"."project_id" FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" INNER JOIN "member_roles" ON "member_roles"."member_id" = "members"."id" WHERE (projects.status <> 9) AND (members.user_id = 5 OR (projects.is_public = TRUE AND members.user_id = 3))
SELECT "roles".* FROM "roles" WHERE "roles"."id" = $1
SELECT 1 AS one FROM "projects" WHERE (((projects.status = 1 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='issue_tracking')) AND ((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (5,3))) OR projects.id IN (1,2)))) AND (projects.id IN (SELECT DISTINCT project_id FROM projects_trackers)) AND "projects"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "trackers".* FROM "trackers" INNER JOIN "projects_trackers" ON "trackers"."id" = "projects_trackers"."tracker_id" WHERE "projects_trackers"."project_id" = $1 ORDER BY "trackers"."position" ASC
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = TRUE OR assignee = FALSE)
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT 1 AS one FROM "issues" INNER JOIN "projects" ON "projects"."id" = "issues"."project_id" WHERE (((projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='issue_tracking')) AND (((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (5,3))) AND ((issues.is_private = FALSE OR issues.author_id = 5 OR issues.assigned_to_id IN (5)))) OR (projects.id IN (1,2) AND ((issues.is_private = FALSE OR issues.author_id = 5 OR issues.assigned_to_id IN (5))))))) AND "issues"."id" = $1 LIMIT $2
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
BEGIN
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT 1 AS one FROM "trackers" INNER JOIN "projects_trackers" ON "trackers"."id" = "projects_trackers"."tracker_id" WHERE "projects_trackers"."project_id" = $1 AND "trackers"."id" = $2 LIMIT $3
SELECT "roles".* FROM "roles" WHERE "roles"."assignable" = $1
SELECT DISTINCT "users".* FROM "users" INNER JOIN "members" ON "members"."user_id" = "users"."id" INNER JOIN "member_roles" ON "member_roles"."member_id" = "members"."id" INNER JOIN "roles" ON "roles"."id" = "member_roles"."role_id" WHERE "users"."status" = $1 AND "users"."type" = $2 AND "members"."project_id" = $3 AND "roles"."assignable" = $4 AND "roles"."id" IN ($5, $6, $7, $8, $9) ORDER BY users.type DESC, users.firstname, users.lastname, users.id
SELECT "issues".* FROM "issues" WHERE "issues"."root_id" = $1 AND (issues.lft <= 1 AND issues.rgt >= 2) ORDER BY "issues"."lft" ASC
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_from_id" = $1
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "issues"."id" FROM "issues" WHERE (root_id IN (SELECT root_id FROM issues WHERE id IN (4))) ORDER BY "issues"."id" ASC FOR UPDATE
SELECT "issues"."root_id", "issues"."lft", "issues"."rgt" FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT MAX("issues"."rgt") FROM "issues" WHERE "issues"."root_id" = $1 AND "issues"."parent_id" = $2
UPDATE "issues" SET lft = CASE WHEN lft >= 2 THEN lft + 2 ELSE lft END, rgt = CASE WHEN rgt >= 2 THEN rgt + 2 ELSE rgt END WHERE "issues"."root_id" = $1 AND (lft >= 2 OR rgt >= 2)
INSERT INTO "issues" ("tracker_id", "project_id", "subject", "description", "status_id", "assigned_to_id", "priority_id", "author_id", "created_on", "updated_on", "start_date", "parent_id", "root_id", "lft", "rgt", "lock_version") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING "id"
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_from_id" = $1
SELECT "issues".* FROM "issues" WHERE "issues"."root_id" = $1 AND (issues.lft >= 2 AND issues.rgt <= 3) ORDER BY "issues"."lft" ASC
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT MAX("enumerations"."position") FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" INNER JOIN "enumerations" ON "enumerations"."id" = "issues"."priority_id" AND "enumerations"."type" = $1 WHERE "issues"."parent_id" = $2 AND "issue_statuses"."is_closed" = $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."position" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT MIN("issues"."start_date") FROM "issues" WHERE "issues"."parent_id" = $1
SELECT MAX("issues"."due_date") FROM "issues" WHERE "issues"."parent_id" = $1
SELECT "issues".* FROM "issues" WHERE "issues"."parent_id" = $1 ORDER BY "issues"."lft" ASC
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
SELECT "users".* FROM "users" WHERE "users"."type" = $1 ORDER BY id LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "issues".* FROM "issues" INNER JOIN "projects" ON "projects"."id" = "issues"."project_id" WHERE (((projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='issue_tracking')) AND (((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (5,3))) AND ((issues.is_private = FALSE OR issues.author_id = 5 OR issues.assigned_to_id IN (5)))) OR (projects.id IN (1,2) AND ((issues.is_private = FALSE OR issues.author_id = 5 OR issues.assigned_to_id IN (5))))))) AND "issues"."id" = $1 LIMIT $2
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
INSERT INTO "journal_details" ("journal_id", "property", "prop_key", "value") VALUES ($1, $2, $3, $4) RETURNING "id"
COMMIT
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
-- request create.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT 1 AS one FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" WHERE "issues"."root_id" = $1 AND (issues.lft > 1 AND issues.rgt < 4) AND "issue_statuses"."is_closed" = $2 LIMIT $3
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
BEGIN
UPDATE "user_preferences" SET "others" = $1 WHERE "user_preferences"."id" = $2
COMMIT
-- request create.put_notes_subtask
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT 1 AS one FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" WHERE "issues"."root_id" = $1 AND (issues.lft < 2 AND issues.rgt > 3) AND "issue_statuses"."is_closed" = $2 LIMIT $3
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT MAX("enumerations"."position") FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" INNER JOIN "enumerations" ON "enumerations"."id" = "issues"."priority_id" AND "enumerations"."type" = $1 WHERE "issues"."parent_id" = $2 AND "issue_statuses"."is_closed" = $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."position" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT MIN("issues"."start_date") FROM "issues" WHERE "issues"."parent_id" = $1
SELECT MAX("issues"."due_date") FROM "issues" WHERE "issues"."parent_id" = $1
SELECT "issues".* FROM "issues" WHERE "issues"."parent_id" = $1 ORDER BY "issues"."lft" ASC
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
BEGIN
UPDATE "user_preferences" SET "others" = $1 WHERE "user_preferences"."id" = $2
COMMIT
-- request process10.get_assigned
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "member_roles"."role_id" = "roles"."id" INNER JOIN "members" ON "members"."id" = "member_roles"."member_id" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE (projects.status <> 9) AND "members"."user_id" = 6
SELECT "roles".* FROM "roles" WHERE "roles"."builtin" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."type" = $1 ORDER BY id LIMIT $2
SELECT "users"."id" FROM "users" WHERE "users"."type" = $1 LIMIT $2
SELECT "members"."user_id", "role_id", "members"."project_id" FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" INNER JOIN "member_roles" ON "member_roles"."member_id" = "members"."id" WHERE (projects.status <> 9) AND (members.user_id = 6 OR (projects.is_public = TRUE AND members.user_id = 3))
SELECT "roles".* FROM "roles" WHERE "roles"."id" = $1
SELECT DISTINCT "trackers".* FROM "trackers" INNER JOIN "projects_trackers" ON "projects_trackers"."tracker_id" = "trackers"."id" INNER JOIN "projects" ON "projects"."id" = "projects_trackers"."project_id" WHERE (((projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='issue_tracking')) AND ((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (6,3))) OR projects.id IN (1,2)))) ORDER BY "trackers"."position" ASC
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 ORDER BY "enumerations"."position" ASC
SELECT 1 AS one FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 LIMIT $3
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (custom_fields.visible = TRUE OR custom_fields.id IN (SELECT DISTINCT cfr.custom_field_id FROM members m INNER JOIN member_roles mr ON mr.member_id = m.id INNER JOIN custom_fields_roles cfr ON cfr.role_id = mr.role_id WHERE m.user_id = 6)) AND "custom_fields"."is_filter" = $2 ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" WHERE (custom_fields.visible = TRUE OR custom_fields.id IN (SELECT DISTINCT cfr.custom_field_id FROM members m INNER JOIN member_roles mr ON mr.member_id = m.id INNER JOIN custom_fields_roles cfr ON cfr.role_id = mr.role_id WHERE m.user_id = 6)) AND "custom_fields"."is_filter" = $1
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (custom_fields.visible = TRUE OR custom_fields.id IN (SELECT DISTINCT cfr.custom_field_id FROM members m INNER JOIN member_roles mr ON mr.member_id = m.id INNER JOIN custom_fields_roles cfr ON cfr.role_id = mr.role_id WHERE m.user_id = 6)) ORDER BY "custom_fields"."position" ASC
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
SELECT COUNT(*) FROM "issues" INNER JOIN "projects" ON "projects"."id" = "issues"."project_id" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" WHERE (((projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='issue_tracking')) AND (((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (6,3))) AND ((issues.is_private = FALSE OR issues.author_id = 6 OR issues.assigned_to_id IN (6)))) OR (projects.id IN (1,2) AND ((issues.is_private = FALSE OR issues.author_id = 6 OR issues.assigned_to_id IN (6))))))) AND ((issues.status_id IN ('1')) AND (issues.assigned_to_id IN ('6')))
SELECT "issues"."id" AS t0_r0, "issues"."tracker_id" AS t0_r1, "issues"."project_id" AS t0_r2, "issues"."subject" AS t0_r3, "issues"."description" AS t0_r4, "issues"."due_date" AS t0_r5, "issues"."category_id" AS t0_r6, "issues"."status_id" AS t0_r7, "issues"."assigned_to_id" AS t0_r8, "issues"."priority_id" AS t0_r9, "issues"."fixed_version_id" AS t0_r10, "issues"."author_id" AS t0_r11, "issues"."lock_version" AS t0_r12, "issues"."created_on" AS t0_r13, "issues"."updated_on" AS t0_r14, "issues"."start_date" AS t0_r15, "issues"."done_ratio" AS t0_r16, "issues"."estimated_hours" AS t0_r17, "issues"."parent_id" AS t0_r18, "issues"."root_id" AS t0_r19, "issues"."lft" AS t0_r20, "issues"."rgt" AS t0_r21, "issues"."is_private" AS t0_r22, "issues"."closed_on" AS t0_r23, "issue_statuses"."id" AS t1_r0, "issue_statuses"."name" AS t1_r1, "issue_statuses"."is_closed" AS t1_r2, "issue_statuses"."position" AS t1_r3, "issue_statuses"."default_done_ratio" AS t1_r4, "projects"."id" AS t2_r0, "projects"."name" AS t2_r1, "projects"."description" AS t2_r2, "projects"."homepage" AS t2_r3, "projects"."is_public" AS t2_r4, "projects"."parent_id" AS t2_r5, "projects"."created_on" AS t2_r6, "projects"."updated_on" AS t2_r7, "projects"."identifier" AS t2_r8, "projects"."status" AS t2_r9, "projects"."lft" AS t2_r10, "projects"."rgt" AS t2_r11, "projects"."inherit_members" AS t2_r12, "projects"."default_version_id" AS t2_r13, "projects"."default_assigned_to_id" AS t2_r14, "projects"."default_issue_query_id" AS t2_r15 FROM "issues" INNER JOIN "projects" ON "projects"."id" = "issues"."project_id" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" WHERE (((projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='issue_tracking')) AND (((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (6,3))) AND ((issues.is_private = FALSE OR issues.author_id = 6 OR issues.assigned_to_id IN (6)))) OR (projects.id IN (1,2) AND ((issues.is_private = FALSE OR issues.author_id = 6 OR issues.assigned_to_id IN (6))))))) AND ((issues.status_id IN ('1')) AND (issues.assigned_to_id IN ('6'))) ORDER BY issues.id DESC LIMIT $1 OFFSET $2
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3
SELECT SUM("time_entries"."hours") AS sum_hours, "time_entries"."issue_id" AS time_entries_issue_id FROM "time_entries" INNER JOIN "projects" ON "projects"."id" = "time_entries"."project_id" WHERE (((projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='time_tracking')) AND ((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (6,3))) OR projects.id IN (1,2)))) AND "time_entries"."issue_id" IN ($1, $2) GROUP BY "time_entries"."issue_id"
SELECT SUM("time_entries"."hours") AS sum_hours, "parent"."id" AS parent_id FROM "time_entries" INNER JOIN "projects" ON "projects"."id" = "time_entries"."project_id" INNER JOIN "issues" ON "issues"."id" = "time_entries"."issue_id" JOIN issues parent ON parent.root_id = issues.root_id AND parent.lft <= issues.lft AND parent.rgt >= issues.rgt WHERE (((projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='time_tracking')) AND ((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (6,3))) OR projects.id IN (1,2)))) AND (parent.id IN (5,4)) GROUP BY "parent"."id"
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT SUM("issues"."estimated_hours") FROM "issues" INNER JOIN "projects" ON "projects"."id" = "issues"."project_id" WHERE "issues"."root_id" = $1 AND (issues.lft >= 1 AND issues.rgt <= 4) AND (((projects.status <> 9 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='issue_tracking')) AND (((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (6,3))) AND ((issues.is_private = FALSE OR issues.author_id = 6 OR issues.assigned_to_id IN (6)))) OR (projects.id IN (1,2) AND ((issues.is_private = FALSE OR issues.author_id = 6 OR issues.assigned_to_id IN (6)))))))
-- request process10.put_in_progress
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE OR assignee = TRUE)
SELECT 1 AS one FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" WHERE "issues"."root_id" = $1 AND (issues.lft > 1 AND issues.rgt < 4) AND "issue_statuses"."is_closed" = $2 LIMIT $3
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "status_id" = $1, "updated_on" = $2, "lock_version" = $3 WHERE "issues"."id" = $4 AND "issues"."lock_version" = $5
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
INSERT INTO "journal_details" ("journal_id", "property", "prop_key", "old_value", "value") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
BEGIN
UPDATE "user_preferences" SET "others" = $1 WHERE "user_preferences"."id" = $2
COMMIT
-- request process10.put_in_progress_subtask
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE OR assignee = TRUE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT 1 AS one FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" WHERE "issues"."root_id" = $1 AND (issues.lft < 2 AND issues.rgt > 3) AND "issue_statuses"."is_closed" = $2 LIMIT $3
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "status_id" = $1, "updated_on" = $2, "lock_version" = $3 WHERE "issues"."id" = $4 AND "issues"."lock_version" = $5
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT MAX("enumerations"."position") FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" INNER JOIN "enumerations" ON "enumerations"."id" = "issues"."priority_id" AND "enumerations"."type" = $1 WHERE "issues"."parent_id" = $2 AND "issue_statuses"."is_closed" = $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."position" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT MIN("issues"."start_date") FROM "issues" WHERE "issues"."parent_id" = $1
SELECT MAX("issues"."due_date") FROM "issues" WHERE "issues"."parent_id" = $1
SELECT "issues".* FROM "issues" WHERE "issues"."parent_id" = $1 ORDER BY "issues"."lft" ASC
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
INSERT INTO "journal_details" ("journal_id", "property", "prop_key", "old_value", "value") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
-- request process10.put_resolved
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE OR assignee = TRUE)
SELECT 1 AS one FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" WHERE "issues"."root_id" = $1 AND (issues.lft > 1 AND issues.rgt < 4) AND "issue_statuses"."is_closed" = $2 LIMIT $3
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
SELECT "roles".* FROM "roles" WHERE "roles"."assignable" = $1
SELECT DISTINCT "users".* FROM "users" INNER JOIN "members" ON "members"."user_id" = "users"."id" INNER JOIN "member_roles" ON "member_roles"."member_id" = "members"."id" INNER JOIN "roles" ON "roles"."id" = "member_roles"."role_id" WHERE "users"."status" = $1 AND "users"."type" = $2 AND "members"."project_id" = $3 AND "roles"."assignable" = $4 AND "roles"."id" IN ($5, $6, $7, $8, $9) ORDER BY users.type DESC, users.firstname, users.lastname, users.id
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
UPDATE "issues" SET "status_id" = $1, "assigned_to_id" = $2, "updated_on" = $3, "lock_version" = $4 WHERE "issues"."id" = $5 AND "issues"."lock_version" = $6
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
INSERT INTO "journal_details" ("journal_id", "property", "prop_key", "old_value", "value") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
INSERT INTO "journal_details" ("journal_id", "property", "prop_key", "old_value", "value") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
-- request process10.put_resolved_subtask
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE OR assignee = TRUE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT 1 AS one FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" WHERE "issues"."root_id" = $1 AND (issues.lft < 2 AND issues.rgt > 3) AND "issue_statuses"."is_closed" = $2 LIMIT $3
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
SELECT "roles".* FROM "roles" WHERE "roles"."assignable" = $1
SELECT DISTINCT "users".* FROM "users" INNER JOIN "members" ON "members"."user_id" = "users"."id" INNER JOIN "member_roles" ON "member_roles"."member_id" = "members"."id" INNER JOIN "roles" ON "roles"."id" = "member_roles"."role_id" WHERE "users"."status" = $1 AND "users"."type" = $2 AND "members"."project_id" = $3 AND "roles"."assignable" = $4 AND "roles"."id" IN ($5, $6, $7, $8, $9) ORDER BY users.type DESC, users.firstname, users.lastname, users.id
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
UPDATE "issues" SET "status_id" = $1, "assigned_to_id" = $2, "updated_on" = $3, "lock_version" = $4 WHERE "issues"."id" = $5 AND "issues"."lock_version" = $6
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT MAX("enumerations"."position") FROM "issues" INNER JOIN "issue_statuses" ON "issue_statuses"."id" = "issues"."status_id" INNER JOIN "enumerations" ON "enumerations"."id" = "issues"."priority_id" AND "enumerations"."type" = $1 WHERE "issues"."parent_id" = $2 AND "issue_statuses"."is_closed" = $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."position" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT MIN("issues"."start_date") FROM "issues" WHERE "issues"."parent_id" = $1
SELECT MAX("issues"."due_date") FROM "issues" WHERE "issues"."parent_id" = $1
SELECT "issues".* FROM "issues" WHERE "issues"."parent_id" = $1 ORDER BY "issues"."lft" ASC
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
INSERT INTO "journal_details" ("journal_id", "property", "prop_key", "old_value", "value") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
INSERT INTO "journal_details" ("journal_id", "property", "prop_key", "old_value", "value") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
-- request cycle.post_issue
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "member_roles"."role_id" = "roles"."id" INNER JOIN "members" ON "members"."id" = "member_roles"."member_id" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE (projects.status <> 9) AND "members"."user_id" = 5
SELECT "roles".* FROM "roles" WHERE "roles"."builtin" = $1 LIMIT $2
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."type" = $1 ORDER BY id LIMIT $2
SELECT "users"."id" FROM "users" WHERE "users"."type" = $1 LIMIT $2
SELECT "members"."user_id", "role_id", "members"."project_id" FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" INNER JOIN "member_roles" ON "member_roles"."member_id" = "members"."id" WHERE (projects.status <> 9) AND (members.user_id = 5 OR (projects.is_public = TRUE AND members.user_id = 3))
SELECT "roles".* FROM "roles" WHERE "roles"."id" = $1
SELECT 1 AS one FROM "projects" WHERE (((projects.status = 1 AND EXISTS (SELECT 1 AS one FROM enabled_modules em WHERE em.project_id = projects.id AND em.name='issue_tracking')) AND ((projects.is_public = TRUE AND projects.id NOT IN (SELECT project_id FROM members WHERE user_id IN (5,3))) OR projects.id IN (1,2)))) AND (projects.id IN (SELECT DISTINCT project_id FROM projects_trackers)) AND "projects"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "trackers".* FROM "trackers" INNER JOIN "projects_trackers" ON "trackers"."id" = "projects_trackers"."tracker_id" WHERE "projects_trackers"."project_id" = $1 ORDER BY "trackers"."position" ASC LIMIT $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = TRUE OR assignee = FALSE)
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT 1 AS one FROM "trackers" INNER JOIN "projects_trackers" ON "trackers"."id" = "projects_trackers"."tracker_id" WHERE "projects_trackers"."project_id" = $1 AND "trackers"."id" = $2 LIMIT $3
SELECT "roles".* FROM "roles" WHERE "roles"."assignable" = $1
SELECT DISTINCT "users".* FROM "users" INNER JOIN "members" ON "members"."user_id" = "users"."id" INNER JOIN "member_roles" ON "member_roles"."member_id" = "members"."id" INNER JOIN "roles" ON "roles"."id" = "member_roles"."role_id" WHERE "users"."status" = $1 AND "users"."type" = $2 AND "members"."project_id" = $3 AND "roles"."assignable" = $4 AND "roles"."id" IN ($5, $6, $7, $8, $9) ORDER BY users.type DESC, users.firstname, users.lastname, users.id
INSERT INTO "issues" ("tracker_id", "project_id", "subject", "description", "status_id", "assigned_to_id", "priority_id", "author_id", "created_on", "updated_on", "start_date", "lock_version") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING "id"
UPDATE "issues" SET "root_id" = $1, "lft" = $2, "rgt" = $3, "lock_version" = COALESCE("lock_version", 0) + $4 WHERE "issues"."id" = $5
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_from_id" = $1
COMMIT
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE OR assignee = TRUE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
BEGIN
UPDATE "user_preferences" SET "others" = $1 WHERE "user_preferences"."id" = $2
COMMIT
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
BEGIN
UPDATE "user_preferences" SET "others" = $1 WHERE "user_preferences"."id" = $2
COMMIT
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
BEGIN
UPDATE "user_preferences" SET "others" = $1 WHERE "user_preferences"."id" = $2
COMMIT
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
BEGIN
UPDATE "user_preferences" SET "others" = $1 WHERE "user_preferences"."id" = $2
COMMIT
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
BEGIN
UPDATE "user_preferences" SET "others" = $1 WHERE "user_preferences"."id" = $2
COMMIT
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
BEGIN
UPDATE "user_preferences" SET "others" = $1 WHERE "user_preferences"."id" = $2
COMMIT
-- request cycle.put_notes
SELECT 1
SELECT MAX("settings"."updated_on") FROM "settings"
SELECT "tokens".* FROM "tokens" WHERE "tokens"."action" = $1 AND "tokens"."value" = $2 LIMIT $3
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT "issues".* FROM "issues" WHERE "issues"."id" = $1 LIMIT $2
SELECT "projects".* FROM "projects" WHERE "projects"."id" = $1 LIMIT $2
SELECT "enabled_modules"."name" FROM "enabled_modules" WHERE "enabled_modules"."project_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "trackers".* FROM "trackers" WHERE "trackers"."id" = $1 LIMIT $2
SELECT "custom_fields".* FROM "custom_fields" WHERE "custom_fields"."type" = $1 AND (is_for_all = TRUE OR id IN (SELECT DISTINCT cfp.custom_field_id FROM custom_fields_projects cfp WHERE cfp.project_id = 2)) ORDER BY "custom_fields"."position" ASC
SELECT "custom_fields".* FROM "custom_fields" INNER JOIN "custom_fields_trackers" ON "custom_fields"."id" = "custom_fields_trackers"."custom_field_id" WHERE "custom_fields"."type" = $1 AND "custom_fields_trackers"."tracker_id" = $2
SELECT "issue_statuses".* FROM "issue_statuses" WHERE "issue_statuses"."id" = $1 LIMIT $2
SELECT "users"."id" FROM "users" INNER JOIN "groups_users" ON "users"."id" = "groups_users"."group_id" WHERE "users"."type" IN ($1, $2, $3, $4) AND "groups_users"."user_id" = $5
SELECT "users".* FROM "users" WHERE "users"."type" IN ($1, $2) AND "users"."id" = $3 LIMIT $4
SELECT DISTINCT "issue_statuses".* FROM "issue_statuses" INNER JOIN "workflows" ON "workflows"."new_status_id" = "issue_statuses"."id" AND "workflows"."type" = $1 WHERE "workflows"."old_status_id" = $2 AND "workflows"."role_id" = $3 AND "workflows"."tracker_id" = $4 AND (author = FALSE AND assignee = FALSE)
SELECT "issue_relations".* FROM "issue_relations" WHERE "issue_relations"."issue_to_id" = $1
SELECT "workflows".* FROM "workflows" WHERE "workflows"."type" = $1 AND "workflows"."tracker_id" = $2 AND "workflows"."old_status_id" = $3 AND "workflows"."role_id" = $4
BEGIN
UPDATE "issues" SET "updated_on" = $1, "lock_version" = $2 WHERE "issues"."id" = $3 AND "issues"."lock_version" = $4
SELECT "custom_values".* FROM "custom_values" WHERE "custom_values"."customized_id" = $1 AND "custom_values"."customized_type" = $2
INSERT INTO "journals" ("journalized_id", "journalized_type", "user_id", "notes", "created_on") VALUES ($1, $2, $3, $4, $5) RETURNING "id"
COMMIT
SELECT "users".* FROM "users" WHERE "users"."id" = $1 LIMIT $2
SELECT "members".* FROM "members" INNER JOIN "users" ON "users"."id" = "members"."user_id" WHERE "members"."project_id" = $1 AND "users"."type" = $2 AND "users"."status" = $3
SELECT "users".* FROM "users" WHERE "users"."id" IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."id" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "enumerations".* FROM "enumerations" WHERE "enumerations"."type" = $1 AND "enumerations"."is_default" = $2 ORDER BY "enumerations"."position" ASC LIMIT $3
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "members".* FROM "members" INNER JOIN "projects" ON "projects"."id" = "members"."project_id" WHERE "members"."user_id" = $1 AND "projects"."status" != $2 AND "members"."project_id" = $3 ORDER BY "members"."id" ASC LIMIT $4
SELECT DISTINCT "roles".* FROM "roles" INNER JOIN "member_roles" ON "roles"."id" = "member_roles"."role_id" WHERE "member_roles"."member_id" = $1
SELECT "users".* FROM "users" INNER JOIN "watchers" ON "users"."id" = "watchers"."user_id" WHERE "watchers"."watchable_id" = $1 AND "watchers"."watchable_type" = $2 AND "users"."status" = $3
SELECT "user_preferences".* FROM "user_preferences" WHERE "user_preferences"."user_id" = $1 LIMIT $2
