export const SYSTEM_HOOK_TRIGGER_PREFIX = 'system_hook_';
const NOW_MS = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
const NOW_ISO = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

const VISIBILITY = (level: string) => `CASE ${level} WHEN 20 THEN 'public' WHEN 10 THEN 'internal' ELSE 'private' END`;
const ACCESS_NAME = (level: string) =>
  `CASE ${level} WHEN 10 THEN 'Guest' WHEN 20 THEN 'Reporter' WHEN 30 THEN 'Developer' WHEN 40 THEN 'Maintainer' WHEN 50 THEN 'Owner' ELSE 'No access' END`;
const FULL_PATH = (namespaceId: string) => `(SELECT full_path FROM namespaces WHERE id = ${namespaceId})`;

/** GitLab's project_data (SystemHooksService): the project, its owner (a user, or a group and its owners) and visibility. */
function projectData(p: string, event: string): string {
  const namespace = `(SELECT n.kind FROM namespaces n WHERE n.id = ${p}.namespace_id)`;
  const ownerUser = `(SELECT u.%s FROM namespaces n JOIN users u ON u.id = n.owner_id WHERE n.id = ${p}.namespace_id)`;
  return `json_object(
    'created_at', ${p}.created_at, 'updated_at', ${p}.updated_at, 'event_name', '${event}',
    'name', ${p}.name, 'path', ${p}.path, 'path_with_namespace', ${FULL_PATH(`${p}.namespace_id`)} || '/' || ${p}.path,
    'project_id', ${p}.id,
    'owner_name', CASE ${namespace} WHEN 'user' THEN ${ownerUser.replace('%s', 'name')} ELSE (SELECT name FROM namespaces WHERE id = ${p}.namespace_id) END,
    'owner_email', CASE ${namespace} WHEN 'user' THEN ${ownerUser.replace('%s', 'email')} ELSE '' END,
    'owners', json((SELECT json_group_array(json_object('name', u.name, 'email', u.email)) FROM users u WHERE u.id IN (
      SELECT owner_id FROM namespaces WHERE id = ${p}.namespace_id AND kind = 'user'
      UNION SELECT user_id FROM group_members WHERE namespace_id = ${p}.namespace_id AND access_level = 50))),
    'project_visibility', ${VISIBILITY(`${p}.visibility_level`)})`;
}

/** GitLab's group_data. */
const groupData = (g: string, event: string) =>
  `json_object('created_at', ${g}.created_at, 'updated_at', ${g}.updated_at, 'event_name', '${event}', 'name', ${g}.name, 'path', ${g}.path,
    'full_path', ${g}.full_path, 'group_id', ${g}.id, 'owner_name', NULL, 'owner_email', NULL)`;

/** GitLab's user_data. */
const userData = (u: string, event: string) =>
  `json_object('created_at', ${u}.created_at, 'updated_at', ${u}.updated_at, 'event_name', '${event}', 'email', ${u}.email,
    'name', ${u}.name, 'username', ${u}.username, 'user_id', ${u}.id)`;

/** GitLab's project_member_data (user_add_to_team and the like). */
const projectMemberData = (m: string, event: string) =>
  `(SELECT json_object('created_at', ${m}.created_at, 'updated_at', ${m}.updated_at, 'event_name', '${event}',
    'access_level', ${ACCESS_NAME(`${m}.access_level`)}, 'project_id', p.id, 'project_name', p.name, 'project_path', p.path,
    'project_path_with_namespace', ${FULL_PATH('p.namespace_id')} || '/' || p.path,
    'user_email', u.email, 'user_name', u.name, 'user_username', u.username, 'user_id', u.id, 'project_visibility', ${VISIBILITY('p.visibility_level')})
    FROM projects p, users u WHERE p.id = ${m}.project_id AND u.id = ${m}.user_id)`;

/** GitLab's group_member_data (user_add_to_group and the like). */
const groupMemberData = (m: string, event: string) =>
  `(SELECT json_object('created_at', ${m}.created_at, 'updated_at', ${m}.updated_at, 'event_name', '${event}',
    'group_access', ${ACCESS_NAME(`${m}.access_level`)}, 'group_id', g.id, 'group_name', g.name, 'group_path', g.path,
    'user_email', u.email, 'user_name', u.name, 'user_username', u.username, 'user_id', u.id)
    FROM namespaces g, users u WHERE g.id = ${m}.namespace_id AND u.id = ${m}.user_id)`;

/** GitLab's key_data. */
const keyData = (k: string, event: string) =>
  `(SELECT json_object('event_name', '${event}', 'created_at', ${k}.created_at, 'updated_at', ${k}.created_at, 'username', u.username, 'key', ${k}.key, 'id', ${k}.id)
    FROM users u WHERE u.id = ${k}.user_id)`;

interface SystemEventTrigger {
  readonly event: string;
  /** `AFTER INSERT ON projects`, with its WHEN clause if any. */
  readonly on: string;
  /** The payload, a JSON text expression over NEW or OLD. */
  readonly body: string;
}

/** Rows deleted with their parent (a project, a group, a user) fire nothing of their own: the parent's event says it. */
const stillThere = (table: string, id: string) => `EXISTS (SELECT 1 FROM ${table} WHERE id = ${id})`;

const TRIGGERS: readonly SystemEventTrigger[] = [
  { event: 'project_create', on: 'AFTER INSERT ON projects', body: projectData('NEW', 'project_create') },
  { event: 'project_destroy', on: 'BEFORE DELETE ON projects', body: projectData('OLD', 'project_destroy') },
  {
    event: 'project_rename',
    on: 'AFTER UPDATE OF path ON projects WHEN OLD.path <> NEW.path AND OLD.namespace_id = NEW.namespace_id',
    body: `json_set(${projectData('NEW', 'project_rename')}, '$.old_path_with_namespace', ${FULL_PATH('OLD.namespace_id')} || '/' || OLD.path)`,
  },
  {
    event: 'project_transfer',
    on: 'AFTER UPDATE OF namespace_id ON projects WHEN OLD.namespace_id <> NEW.namespace_id',
    body: `json_set(${projectData('NEW', 'project_transfer')}, '$.old_path_with_namespace', ${FULL_PATH('OLD.namespace_id')} || '/' || OLD.path)`,
  },
  { event: 'group_create', on: "AFTER INSERT ON namespaces WHEN NEW.kind = 'group'", body: groupData('NEW', 'group_create') },
  { event: 'group_destroy', on: "BEFORE DELETE ON namespaces WHEN OLD.kind = 'group'", body: groupData('OLD', 'group_destroy') },
  {
    event: 'group_rename',
    on: "AFTER UPDATE OF path, full_path ON namespaces WHEN NEW.kind = 'group' AND OLD.full_path <> NEW.full_path",
    body: `json_set(${groupData('NEW', 'group_rename')}, '$.old_path', OLD.path, '$.old_full_path', OLD.full_path)`,
  },
  { event: 'user_create', on: 'AFTER INSERT ON users WHEN NEW.ghost = 0', body: userData('NEW', 'user_create') },
  { event: 'user_destroy', on: 'BEFORE DELETE ON users WHEN OLD.ghost = 0', body: userData('OLD', 'user_destroy') },
  {
    event: 'user_rename',
    on: 'AFTER UPDATE OF username ON users WHEN OLD.username <> NEW.username',
    body: `json_set(${userData('NEW', 'user_rename')}, '$.old_username', OLD.username)`,
  },
  { event: 'user_add_to_team', on: 'AFTER INSERT ON project_members', body: projectMemberData('NEW', 'user_add_to_team') },
  {
    event: 'user_update_for_team',
    on: 'AFTER UPDATE OF access_level ON project_members WHEN OLD.access_level <> NEW.access_level',
    body: projectMemberData('NEW', 'user_update_for_team'),
  },
  {
    event: 'user_remove_from_team',
    on: `AFTER DELETE ON project_members WHEN ${stillThere('projects', 'OLD.project_id')} AND ${stillThere('users', 'OLD.user_id')}`,
    body: projectMemberData('OLD', 'user_remove_from_team'),
  },
  { event: 'user_add_to_group', on: 'AFTER INSERT ON group_members', body: groupMemberData('NEW', 'user_add_to_group') },
  {
    event: 'user_update_for_group',
    on: 'AFTER UPDATE OF access_level ON group_members WHEN OLD.access_level <> NEW.access_level',
    body: groupMemberData('NEW', 'user_update_for_group'),
  },
  {
    event: 'user_remove_from_group',
    on: `AFTER DELETE ON group_members WHEN ${stillThere('namespaces', 'OLD.namespace_id')} AND ${stillThere('users', 'OLD.user_id')}`,
    body: groupMemberData('OLD', 'user_remove_from_group'),
  },
  { event: 'key_create', on: 'AFTER INSERT ON ssh_keys', body: keyData('NEW', 'key_create') },
  { event: 'key_destroy', on: `AFTER DELETE ON ssh_keys WHEN ${stillThere('users', 'OLD.user_id')}`, body: keyData('OLD', 'key_destroy') },
];

/**
 * GitLab fires these system hook events from its models' callbacks, whatever changed the row (the
 * API, LDAP sync, a service). Triggers do the same here: the change itself queues one delivery per
 * system hook, in its own transaction, so no code path can forget the event and a rolled-back
 * change queues nothing. Primary only, like the capture triggers (db/capture.ts calls this): a
 * secondary applies the primary's rows and delivers nothing. Push, tag push, merge request and
 * repository update events are fired by the code that makes them (services/hooks/system-fire.ts).
 * By trigger name, each trigger's CREATE statement.
 */
export function systemHookTriggers(): Map<string, string> {
  return new Map(
    TRIGGERS.map((trigger) => [
      `${SYSTEM_HOOK_TRIGGER_PREFIX}${trigger.event}`,
      `CREATE TRIGGER "${SYSTEM_HOOK_TRIGGER_PREFIX}${trigger.event}" ${trigger.on} BEGIN
      INSERT INTO web_hook_queue (system_hook_id, event, body, next_attempt_at, created_at)
        SELECT s.id, '${trigger.event}', body, ${NOW_MS}, ${NOW_ISO} FROM system_hooks s, (SELECT ${trigger.body} AS body) WHERE body IS NOT NULL;
    END`,
    ]),
  );
}
