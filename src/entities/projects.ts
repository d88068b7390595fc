import type { NamespaceRow } from '../db/tables/namespaces.js';
import type { SharedGroupRow } from '../db/tables/project-relations.js';
import type { ProjectGroupLinkRow, ProjectRow } from '../db/tables/projects.js';
import type { UserRow } from '../db/tables/users.js';
import { ACCESS, visibilityName } from '../db/levels.js';
import { userBasic, type EntityContext } from './users.js';
import { flag, isoTime } from './column-values.js';

/** Sizes and counts of one project's storage (SPEC: Project `statistics`). */
export interface ProjectStatistics {
  commit_count: number;
  storage_size: number;
  repository_size: number;
  lfs_objects_size: number;
  job_artifacts_size: number;
}

/**
 * Everything the project views need beyond the row, loaded by services/projects/relations.ts for
 * a whole page in a fixed number of queries: entities never query.
 */
export interface ProjectRelations {
  readonly namespaces: ReadonlyMap<number, NamespaceRow>;
  /** Owners of user namespaces, by user id. */
  readonly owners: ReadonlyMap<number, UserRow>;
  readonly forkCounts: ReadonlyMap<number, number>;
  /** Topic names by project id, in the order the project was given them. */
  readonly topics: ReadonlyMap<number, readonly string[]>;
  readonly sharedGroups: ReadonlyMap<number, readonly SharedGroupRow[]>;
  /** The projects that forks were forked from, by id. */
  readonly forkedFrom: ReadonlyMap<number, ProjectRow>;
  /** The caller's direct membership level, by project id (`permissions.project_access`). */
  readonly projectAccess: ReadonlyMap<number, number>;
  /** The caller's group membership level, by namespace id (`permissions.group_access`). */
  readonly groupAccess: ReadonlyMap<number, number>;
  /** The caller's effective level, by project id; admins count as owners. */
  readonly effectiveAccess: ReadonlyMap<number, number>;
  /** The caller's notification levels they set, by project id and by group id (none set: `global`). */
  readonly notificationLevels: { readonly projects: ReadonlyMap<number, string>; readonly groups: ReadonlyMap<number, string> };
  /** Present only when statistics were asked for, holding the projects the caller may see them for. */
  readonly statistics: ReadonlyMap<number, ProjectStatistics> | null;
}

/** GitLab's NotificationSetting level enum as MemberAccess shows it; a member with no setting of their own has 3, "global" (GITLAB-NOTES 1.5). */
const NOTIFICATION_LEVEL_VALUES: Readonly<Record<string, number>> = { disabled: 0, participating: 1, watch: 2, global: 3, mention: 4, custom: 5 };
const notificationLevelValue = (level: string | undefined): number => NOTIFICATION_LEVEL_VALUES[level ?? 'global'] ?? NOTIFICATION_LEVEL_VALUES.global!;

function namespaceOf(row: ProjectRow, rel: ProjectRelations): NamespaceRow {
  const namespace = rel.namespaces.get(row.namespace_id);
  if (!namespace) throw new Error(`project ${row.id}: namespace ${row.namespace_id} was not preloaded`);
  return namespace;
}

const projectFullPath = (row: ProjectRow, namespace: NamespaceRow): string => `${namespace.full_path}/${row.path}`;

function projectAvatarUrl(row: ProjectRow, ctx: EntityContext): string | null {
  return row.avatar_path ? `${ctx.externalUrl}/uploads/-/system/project/avatar/${row.id}/${encodeURIComponent(row.avatar_path)}` : null;
}

/** BasicProjectDetails: anonymous callers, `simple=true` lists and `forked_from_project` (GITLAB-NOTES 2.2). */
export function projectBasic(row: ProjectRow, rel: ProjectRelations, ctx: EntityContext) {
  const namespace = namespaceOf(row, rel);
  const fullPath = projectFullPath(row, namespace);
  return {
    id: row.id,
    description: row.description,
    name: row.name,
    name_with_namespace: `${namespace.full_name} / ${row.name}`,
    path: row.path,
    path_with_namespace: fullPath,
    created_at: isoTime(row.created_at),
    default_branch: row.default_branch,
    // GitLab 17 names the list `topics`; `tag_list` is kept, sorted as 10.8 answered it (SPEC: Project).
    tag_list: [...(rel.topics.get(row.id) ?? [])].sort(),
    topics: rel.topics.get(row.id) ?? [],
    ssh_url_to_repo: `git@${new URL(ctx.externalUrl).hostname}:${fullPath}.git`,
    http_url_to_repo: `${ctx.externalUrl}/${fullPath}.git`,
    web_url: `${ctx.externalUrl}/${fullPath}`,
    avatar_url: projectAvatarUrl(row, ctx),
    star_count: row.star_count,
    forks_count: rel.forkCounts.get(row.id) ?? 0,
    last_activity_at: isoTime(row.last_activity_at),
  };
}

function links(row: ProjectRow, ctx: EntityContext) {
  const self = `${ctx.externalUrl}/api/v4/projects/${row.id}`;
  return {
    self,
    ...(flag(row.issues_enabled) ? { issues: `${self}/issues` } : {}),
    ...(flag(row.merge_requests_enabled) ? { merge_requests: `${self}/merge_requests` } : {}),
    repo_branches: `${self}/repository/branches`,
    labels: `${self}/labels`,
    events: `${self}/events`,
    members: `${self}/members`,
  };
}

/** Project: create, update, star and archive responses; the base of ProjectWithAccess (ENT Project, EE fields included). */
export function projectView(row: ProjectRow, rel: ProjectRelations, ctx: EntityContext) {
  const namespace = namespaceOf(row, rel);
  const level = rel.effectiveAccess.get(row.id) ?? ACCESS.none;
  const canAdmin = level >= ACCESS.maintainer;
  const owner = namespace.kind === 'user' && namespace.owner_id !== null ? rel.owners.get(namespace.owner_id) : undefined;
  const parent = row.forked_from_project_id === null ? undefined : rel.forkedFrom.get(row.forked_from_project_id);
  const statistics = rel.statistics?.get(row.id);
  return Object.assign(projectBasic(row, rel, ctx), {
    _links: links(row, ctx),
    archived: flag(row.archived),
    visibility: visibilityName(row.visibility_level),
    ...(owner ? { owner: { ...userBasic(owner, ctx), created_at: isoTime(owner.created_at) } } : {}),
    resolve_outdated_diff_discussions: flag(row.resolve_outdated_diff_discussions),
    container_registry_enabled: flag(row.container_registry_enabled),
    issues_enabled: flag(row.issues_enabled),
    merge_requests_enabled: flag(row.merge_requests_enabled),
    wiki_enabled: flag(row.wiki_enabled),
    jobs_enabled: flag(row.jobs_enabled),
    snippets_enabled: flag(row.snippets_enabled),
    shared_runners_enabled: flag(row.shared_runners_enabled),
    lfs_enabled: flag(row.lfs_enabled),
    creator_id: row.creator_id,
    namespace: {
      id: namespace.id,
      name: namespace.name,
      path: namespace.path,
      kind: namespace.kind,
      full_path: namespace.full_path,
      parent_id: namespace.parent_id,
    },
    ...(parent ? { forked_from_project: projectBasic(parent, rel, ctx) } : {}),
    import_status: row.import_status,
    ...(canAdmin ? { import_error: row.import_error } : {}),
    // GitLab's counter cache, kept by the issue services (opened, non-confidential issues).
    ...(flag(row.issues_enabled) ? { open_issues_count: row.open_issues_count } : {}),
    ...(canAdmin ? { runners_token: row.runners_token } : {}),
    public_jobs: flag(row.public_jobs),
    ci_config_path: row.ci_config_path,
    shared_with_groups: (rel.sharedGroups.get(row.id) ?? []).map((link) => ({
      group_id: link.group_id,
      group_name: link.group_name,
      group_access_level: link.group_access,
    })),
    only_allow_merge_if_pipeline_succeeds: flag(row.only_allow_merge_if_pipeline_succeeds),
    request_access_enabled: flag(row.request_access_enabled),
    only_allow_merge_if_all_discussions_are_resolved: flag(row.only_allow_merge_if_all_discussions_are_resolved),
    printing_merge_request_link_enabled: flag(row.printing_merge_request_link_enabled),
    approvals_before_merge: row.approvals_before_merge,
    repository_storage: row.repository_storage,
    ...(statistics ? { statistics } : {}),
  });
}

/** ProjectWithAccess: authenticated reads, adding the caller's `permissions`. */
export function projectWithAccess(row: ProjectRow, rel: ProjectRelations, ctx: EntityContext) {
  const namespace = namespaceOf(row, rel);
  const direct = rel.projectAccess.get(row.id);
  const group = namespace.kind === 'group' ? rel.groupAccess.get(namespace.id) : undefined;
  const access = (level: number | undefined, notification: string | undefined) => (level === undefined ? null : { access_level: level, notification_level: notificationLevelValue(notification) });
  return Object.assign(projectView(row, rel, ctx), {
    permissions: {
      project_access: access(direct, rel.notificationLevels.projects.get(row.id)),
      group_access: access(group, rel.notificationLevels.groups.get(namespace.id)),
    },
  });
}

/** ProjectGroupLink: the answer to a share (GITLAB-NOTES 2.2). */
export function projectGroupLink(link: ProjectGroupLinkRow) {
  return { id: link.id, project_id: link.project_id, group_id: link.group_id, group_access: link.group_access, expires_at: link.expires_at };
}
