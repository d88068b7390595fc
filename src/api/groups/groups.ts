import { Router, type Request } from 'express';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { group, groupDetail, type GroupStatistics } from '../../entities/groups.js';
import { projectView } from '../../entities/projects.js';
import type { Actor } from '../../services/users/authentication.js';
import { deleteGroup, groupStatistics } from '../../services/groups/removal.js';
import { listGroups, listSubgroups, type GroupListFilters } from '../../services/groups/lists.js';
import { assertMayDeleteGroup, createGroup, updateGroup, type GroupInput } from '../../services/groups/groups.js';
import { listProjects } from '../../services/projects/projects.js';
import { loadProjectRelations } from '../../services/projects/relations.js';
import { isAdmin, VISIBILITY_NAMES } from '../../services/permissions.js';
import { findVisibleGroup } from '../../services/find-visible.js';
import type { SiteContext } from '../../site-context.js';
import { customAttributesRouter } from '../custom-attributes.js';
import { requireActor } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { bool, hash, idOrPath, int, list, oneOf, readParams, required, requireAtLeastOne, str, type Input } from '../params.js';
import { sendJson } from '../respond.js';

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
] as const;

/** Groups: list, subgroups, details, create, update, delete (SPEC: Groups; GITLAB-NOTES 2.1). Anonymous reads see public groups. */
export function groupsRouter(ctx: SiteContext): Router {
  const router = Router();
  router.get('/groups', async (req, res) => {
    const { filters, statistics } = readListParams(req);
    const page = readPage(req.input);
    const result = listGroups(ctx.db, req.actor, filters, page);
    sendPage(req, res, ctx.externalUrl, page, await groupViews(ctx, result.rows, statistics), result.total);
  });
  router.get('/groups/:id/subgroups', async (req, res) => {
    const { filters, statistics } = readListParams(req);
    const page = readPage(req.input);
    const parent = findVisibleGroup(ctx.db, req.actor, idOrPath(String(req.params.id)));
    const result = listSubgroups(ctx.db, req.actor, parent, filters, page);
    sendPage(req, res, ctx.externalUrl, page, await groupViews(ctx, result.rows, statistics), result.total);
  });
  router.get('/groups/:id', (req, res) => {
    sendJson(res, 200, groupDetailOf(ctx, req.actor, findVisibleGroup(ctx.db, req.actor, idOrPath(String(req.params.id)))));
  });
  router.post('/groups', (req, res) => {
    const actor = requireActor(req);
    const input = readGroupInput(req.input, true) as GroupInput & { name: string; path: string };
    sendJson(res, 201, groupDetailOf(ctx, actor, createGroup(ctx.db, actor, input)));
  });
  router.put('/groups/:id', (req, res) => {
    const actor = requireActor(req);
    const input = readGroupInput(req.input, false);
    requireAtLeastOne(input as Record<string, unknown>, UPDATABLE);
    const target = findVisibleGroup(ctx.db, actor, idOrPath(String(req.params.id)));
    sendJson(res, 200, groupDetailOf(ctx, actor, updateGroup(ctx.db, actor, target, input)));
  });
  router.delete('/groups/:id', async (req, res) => {
    const actor = requireActor(req);
    const target = findVisibleGroup(ctx.db, actor, idOrPath(String(req.params.id)));
    assertMayDeleteGroup(ctx.db, actor, target);
    await deleteGroup(ctx, target);
    sendJson(res, 202, { message: '202 Accepted' });
  });
  return router;
}

/** GET/PUT/DELETE /groups/:id/custom_attributes[/:key], admin only. */
export function groupCustomAttributesRouter(ctx: SiteContext): Router {
  return customAttributesRouter(ctx, {
    base: '/groups/:id',
    owner: { table: 'group_custom_attributes', column: 'group_id' },
    resolveOwner: (db, req) => findVisibleGroup(db, req.actor, idOrPath(String(req.params.id))).id,
  });
}

/** The common group-list parameters; `statistics` counts for admins only (GITLAB-NOTES 2.1). */
function readListParams(req: Request): { filters: GroupListFilters; statistics: boolean } {
  const params = readParams(req.input, {
    all_available: bool(),
    skip_groups: list(int()),
    search: str(),
    owned: bool(),
    statistics: bool(),
    custom_attributes: hash(),
    order_by: oneOf(['name', 'path'] as const),
    sort: oneOf(['asc', 'desc'] as const),
  });
  return {
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
  };
}

function readGroupInput(input: Input, creating: boolean): GroupInput {
  const text = creating ? required(str({ max: 255 })) : str();
  const params = readParams(input, {
    name: text,
    path: text,
    description: str(),
    visibility: oneOf(VISIBILITY_NAMES),
    lfs_enabled: bool(),
    request_access_enabled: bool(),
    shared_runners_minutes_limit: int({ min: 0 }),
    ...(creating ? { parent_id: int() } : { membership_lock: bool(), share_with_group_lock: bool() }),
  });
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined) out[key] = value;
  return out as GroupInput;
}

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
  return groupDetail(row, ctx, { own: own.map((p) => projectView(p, rel, ctx)), shared: shared.map((p) => projectView(p, rel, ctx)) });
}
