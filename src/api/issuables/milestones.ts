import type { Request, Response } from 'express';
import type { MilestoneRow } from '../../db/tables/milestones.js';
import { milestoneView } from '../../entities/milestones.js';
import { promoteMilestone } from '../../services/issuables/milestone-promotion.js';
import { createMilestone, deleteMilestone, getMilestone, listMilestones, milestoneOwnerPaths, updateMilestone, type MilestoneOwner } from '../../services/issuables/milestones.js';
import { listIssues } from '../../services/issuables/issue-lists.js';
import { groupMilestoneScope, projectMilestoneScope } from '../../services/issuables/scopes.js';
import { listMergeRequests } from '../../services/merge-requests/lists.js';
import { can } from '../../services/permissions.js';
import type { SiteContext } from '../../site-context.js';
import { sendMergeRequestPage } from '../merge-requests/response.js';
import { groupOf, projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, paged, sendPage } from '../pagination.js';
import { bool, clearable, date, datetime, int, list, oneOf, required, requireAtLeastOne, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { sendIssuePage } from './issue-response.js';

/**
 * Milestones of projects and groups (lib/api/project_milestones.rb, group_milestones.rb,
 * milestone_responses.rb): the same handlers serve both, `kind` saying whose a route addresses.
 */
export type MilestoneParentKind = 'project' | 'group';

export const milestoneId = pathId('milestone_id');

const ownerOf = (req: Request, kind: MilestoneParentKind): MilestoneOwner => (kind === 'project' ? { projectId: projectOf(req).id } : { groupId: groupOf(req).id });

export const milestoneListParams = paramsGuard(
  'milestoneListParams',
  {
    state: oneOf(['active', 'closed', 'all'] as const),
    iids: list(int()),
    title: str(),
    search: str(),
    include_parent_milestones: bool(),
    updated_before: datetime(),
    updated_after: datetime(),
    ...PAGE_PARAMS,
  },
  (params) => ({
    filters: {
      state: params.state === 'all' ? undefined : params.state,
      iids: params.iids,
      title: params.title,
      search: params.search || undefined,
      updatedBefore: params.updated_before,
      updatedAfter: params.updated_after,
    },
    includeParents: params.include_parent_milestones === true,
    page: pageOf(params),
  }),
);

/** The optional attributes of a create or edit; `''` clears a date. */
const MILESTONE_PARAMS = { title: str(), description: str(), due_date: clearable(date()), start_date: clearable(date()), state_event: oneOf(['close', 'activate'] as const) };

export const milestoneCreateParams = paramsGuard('milestoneCreateParams', { ...MILESTONE_PARAMS, title: required(str()) }, ({ state_event: _ignored, ...input }) => input);

export const milestoneUpdateParams = paramsGuard('milestoneUpdateParams', MILESTONE_PARAMS, (input) => {
  requireAtLeastOne({ ...input }, ['title', 'description', 'start_date', 'due_date', 'state_event']);
  return input;
});

export const milestoneHandlers = (kind: MilestoneParentKind) => {
  const send = (ctx: SiteContext, res: Response, status: number, milestone: MilestoneRow) =>
    sendJson(res, status, milestoneView(milestone, milestoneOwnerPaths(ctx.db, [milestone])(milestone), ctx));
  const find = (ctx: SiteContext, req: Request) => getMilestone(ctx.db, ownerOf(req, kind), milestoneId.of(req));
  return {
    list(ctx: SiteContext, req: Request, res: Response): void {
      const { filters, includeParents, page } = milestoneListParams.of(req);
      const scope = kind === 'project' ? projectMilestoneScope(ctx.db, projectOf(req), includeParents) : groupMilestoneScope(ctx.db, groupOf(req), includeParents);
      const result = listMilestones(ctx.db, scope, filters, page);
      const paths = milestoneOwnerPaths(ctx.db, result.rows);
      const views = result.rows.map((row) => milestoneView(row, paths(row), ctx));
      sendPage(req, res, ctx.externalUrl, page, views, result.total);
    },
    show(ctx: SiteContext, req: Request, res: Response): void {
      send(ctx, res, 200, find(ctx, req));
    },
    create(ctx: SiteContext, req: Request, res: Response): void {
      send(ctx, res, 201, createMilestone(ctx, requireActor(req), ownerOf(req, kind), milestoneCreateParams.of(req)));
    },
    update(ctx: SiteContext, req: Request, res: Response): void {
      send(ctx, res, 200, updateMilestone(ctx, requireActor(req), ownerOf(req, kind), find(ctx, req), milestoneUpdateParams.of(req)));
    },
    remove(ctx: SiteContext, req: Request, res: Response): void {
      deleteMilestone(ctx, requireActor(req), find(ctx, req));
      sendNoContent(res);
    },
    /** GET .../issues: the issues of the milestone's title in the project or group, by label priority, as GitLab lists them. */
    issues(ctx: SiteContext, req: Request, res: Response): void {
      const milestone = find(ctx, req);
      const page = paged.of(req);
      const source = kind === 'project' ? { project: projectOf(req) } : { group: groupOf(req) };
      sendIssuePage(ctx, req, res, page, listIssues(ctx.db, req.actor, source, { milestone: milestone.title, orderBy: 'label_priority', sort: 'asc' }, page));
    },
    /** GET .../merge_requests: the merge requests of the milestone's title in the project or group that the caller may read, newest first. */
    mergeRequests(ctx: SiteContext, req: Request, res: Response): void {
      const milestone = find(ctx, req);
      const page = paged.of(req);
      const source = kind === 'project' ? { project: projectOf(req) } : { group: groupOf(req) };
      const readable = kind === 'group' || can(ctx.db, req.actor, 'read_merge_request', projectOf(req));
      const result = readable ? listMergeRequests(ctx.db, req.actor, source, { milestone: milestone.title }, page) : { rows: [], total: 0 };
      sendMergeRequestPage(ctx, req, res, page, result, false);
    },
  };
};

/** POST /projects/:id/milestones/:milestone_id/promote: the group milestone it became, with GitLab's `status(200)` (milestones.rb). */
export function promoteProjectMilestone(ctx: SiteContext, req: Request, res: Response): void {
  const milestone = getMilestone(ctx.db, { projectId: projectOf(req).id }, milestoneId.of(req));
  const promoted = promoteMilestone(ctx, requireActor(req), milestone, groupOf(req));
  sendJson(res, 200, milestoneView(promoted, groupOf(req).full_path, ctx));
}
