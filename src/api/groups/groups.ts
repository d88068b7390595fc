import type { Request, Response } from 'express';
import { applicationSettings } from '../../services/administration/application-settings.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { group, groupDetail, type GroupStatistics } from '../../entities/groups.js';
import { projectView } from '../../entities/projects.js';
import type { Actor } from '../../services/users/authentication.js';
import { deleteGroup, groupStatistics } from '../../services/groups/removal.js';
import { listDescendantGroups, listGroups, listSubgroups, type GroupListFilters } from '../../services/groups/lists.js';
import { createGroup, updateGroup, type GroupInput } from '../../services/groups/groups.js';
import { listProjects } from '../../services/projects/projects.js';
import { loadProjectRelations } from '../../services/projects/relations.js';
import { isAdmin } from '../../services/permissions.js';
import { visibleSharedWithGroups } from '../../services/groups/shares.js';
import { VISIBILITY_NAMES } from '../../db/levels.js';
import type { SiteContext } from '../../site-context.js';
import type { AttributeSubject } from '../custom-attributes.js';
import { groupOf, requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { bool, given, hash, int, list, oneOf, required, requireAtLeastOne, str, type Schema } from '../params.js';
import { sendJson } from '../respond.js';
import { avatarChange, paramsGuard } from '../middleware/value-guards.js';
import { changeGroupAvatar } from '../../services/groups/avatar.js';
import { assertUnmodifiedSince } from '../../services/unmodified-since.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

const UPDATABLE = [
  'name',
  'path',
  'description',
  'membership_lock',
  'share_with_group_lock',
  'visibility',
  'lfs_enabled',
  'request_access_enabled',
  'shared_runners_minutes_limit',
  'avatar',
] as const;

export async function searchGroups(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { filters, statistics } = groupListParams.of(req);
  const page = paged.of(req);
  const result = listGroups(ctx.db, req.actor, filters, page);
  sendPage(req, res, ctx.externalUrl, page, await groupViews(ctx, result.rows, statistics), result.total);
}

export async function listChildGroups(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { filters, statistics } = groupListParams.of(req);
  const page = paged.of(req);
  const result = listSubgroups(ctx.db, req.actor, groupOf(req), filters, page);
  sendPage(req, res, ctx.externalUrl, page, await groupViews(ctx, result.rows, statistics), result.total);
}

/** GET /groups/:id/descendant_groups: the groups below it at any depth, as subgroups lists its children. */
export async function listGroupDescendants(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { filters, statistics } = groupListParams.of(req);
  const page = paged.of(req);
  const result = listDescendantGroups(ctx.db, req.actor, groupOf(req), filters, page);
  sendPage(req, res, ctx.externalUrl, page, await groupViews(ctx, result.rows, statistics), result.total);
}

export function showGroup(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, groupDetailOf(ctx, req.actor, groupOf(req)));
}

export function addGroup(ctx: SiteContext, req: Request, res: Response): void {
  const actor = requireActor(req);
  const input = groupCreateParams.of(req) as GroupInput & { name: string; path: string };
  sendJson(res, 201, groupDetailOf(ctx, actor, createGroup(ctx.db, actor, input, applicationSettings(ctx.db, ctx.config))));
}

export async function editGroup(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const actor = requireActor(req);
  const { input, avatar } = groupEditParams.of(req);
  let updated = Object.keys(input).length ? updateGroup(ctx.db, actor, groupOf(req), input, applicationSettings(ctx.db, ctx.config)) : groupOf(req);
  if (avatar !== undefined) updated = await changeGroupAvatar(ctx.db, ctx.config.dataDir, updated.id, avatar);
  sendJson(res, 200, groupDetailOf(ctx, actor, updated));
}

export async function removeGroup(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  assertUnmodifiedSince(unmodifiedSince.of(req), groupOf(req).updated_at);
  await deleteGroup(ctx, requireActor(req), groupOf(req));
  sendJson(res, 202, { message: '202 Accepted' });
}

/**
 * Grape validates parameters before the endpoint finds its group, so a bad one answers 400 even
 * where the group is invisible (404) or not the caller's to change (403): these guards read them
 * ahead of loadGroup.
 */
export const groupListParams = paramsGuard(
  'groupListParams',
  {
    all_available: bool(),
    skip_groups: list(int()),
    search: str(),
    owned: bool(),
    statistics: bool(),
    custom_attributes: hash(),
    order_by: oneOf(['name', 'path'] as const),
    sort: oneOf(['asc', 'desc'] as const),
  },
  // The common group-list parameters; `statistics` counts for admins only (GITLAB-NOTES 2.1).
  (params, req): { filters: GroupListFilters; statistics: boolean } => ({
    filters: {
      allAvailable: params.all_available,
      skipGroups: params.skip_groups,
      search: params.search,
      owned: params.owned,
      customAttributes: params.custom_attributes,
      orderBy: params.order_by ?? 'name',
      sort: params.sort ?? 'asc',
    },
    statistics: params.statistics === true && isAdmin(req.actor),
  }),
);

/** A group's attributes; `name` and `path` are required to create one. */
const groupParams = (creating: boolean): Schema => {
  const text = creating ? required(str({ max: 255 })) : str();
  return {
    name: text,
    path: text,
    description: str(),
    visibility: oneOf(VISIBILITY_NAMES),
    lfs_enabled: bool(),
    request_access_enabled: bool(),
    shared_runners_minutes_limit: int({ min: 0 }),
    ...(creating ? { parent_id: int() } : { membership_lock: bool(), share_with_group_lock: bool() }),
  };
};

const groupInputOf = (params: Record<string, unknown>): GroupInput => given(params) as GroupInput;

export const groupCreateParams = paramsGuard('groupCreateParams', groupParams(true), groupInputOf);

/** PUT /groups/:id: the group's new attributes, at least one of them (Grape's `at_least_one_of`). */
export const groupEditParams = paramsGuard('groupEditParams', groupParams(false), (params, req) => {
  const input = groupInputOf(params);
  const avatar = avatarChange.of(req);
  requireAtLeastOne({ ...input, avatar }, UPDATABLE);
  return { input, avatar };
});

/** The group whose custom attributes /groups/:id/custom_attributes addresses, loaded by loadGroup. */
export const groupAttributes: AttributeSubject = {
  owner: { table: 'group_custom_attributes', column: 'group_id' },
  ownerId: (_ctx, req) => groupOf(req).id,
};


async function groupViews(ctx: SiteContext, rows: NamespaceRow[], statistics: boolean) {
  if (!statistics) return rows.map((row) => group(row, ctx));
  const figures: Map<number, GroupStatistics> = await groupStatistics(ctx, rows);
  return rows.map((row) => group(row, ctx, figures.get(row.id)));
}

/** Projects listed in group details: GitLab shows the group's projects the caller can see, archived ones included. */
const DETAIL_PROJECTS = { page: 1, perPage: 100, offset: 0 } as const;

/** GroupDetail: the group with its own and shared projects, as the caller may see them (also the transfer's answer). */
export function groupDetailOf(ctx: SiteContext, actor: Actor | null, row: NamespaceRow) {
  const own = listProjects(ctx.db, actor, { namespaceId: row.id, archived: true }, DETAIL_PROJECTS).rows;
  const shared = listProjects(ctx.db, actor, { sharedWithGroupId: row.id, archived: true }, DETAIL_PROJECTS).rows;
  const rel = loadProjectRelations(ctx.db, actor, [...own, ...shared]);
  const sharedWith = visibleSharedWithGroups(ctx.db, actor, row);
  return groupDetail(row, ctx, { own: own.map((p) => projectView(p, rel, ctx)), shared: shared.map((p) => projectView(p, rel, ctx)) }, sharedWith);
}
