import type { Request, Response } from 'express';
import type { EpicRow } from '../../db/tables/epics.js';
import { issueBasic, issueView } from '../../entities/issues.js';
import { epicView } from '../../entities/epics.js';
import { loadIssueRelations } from '../../services/issuables/issue-relations.js';
import { allEpicIssues, assignEpicIssue, findEpicIssue, listEpicIssues, moveEpicIssue, removeEpicIssue, type EpicIssue } from '../../services/planning/epic-issues.js';
import { loadEpicRelations } from '../../services/planning/epic-relations.js';
import { createEpic, deleteEpic, listEpics, updateEpic } from '../../services/planning/epics.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { sendJson, sendNoContent } from '../respond.js';
import { epicCreateParams, epicIssueId, epicIssueMoveParams, epicListParams, epicUpdateParams, issueId, namedEpic } from './epics-params.js';

function epicJson(ctx: SiteContext, epic: EpicRow) {
  return epicView(epic, loadEpicRelations(ctx.db, [epic]), ctx);
}

export function listGroupEpics(ctx: SiteContext, req: Request, res: Response): void {
  const { filter, page } = epicListParams.of(req);
  const result = listEpics(ctx.db, groupOf(req), filter, page);
  const rel = loadEpicRelations(ctx.db, result.rows);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => epicView(row, rel, ctx)), result.total);
}

export function showEpic(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, epicJson(ctx, namedEpic.of(req)));
}

export function addEpic(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, epicJson(ctx, createEpic(ctx.db, requireActor(req), groupOf(req), epicCreateParams.of(req))));
}

export function editEpic(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, epicJson(ctx, updateEpic(ctx.db, namedEpic.of(req), epicUpdateParams.of(req))));
}

/** DELETE answers 204, as GitLab after 10.2 (GITLAB-NOTES 1.2). */
export function removeEpic(ctx: SiteContext, req: Request, res: Response): void {
  deleteEpic(ctx.db, namedEpic.of(req));
  sendNoContent(res);
}

/** The epic's issues as the Issue entity with `epic_issue_id` and `relative_position`. */
function epicIssuesView(ctx: SiteContext, req: Request, items: readonly EpicIssue[]) {
  const rel = loadIssueRelations(ctx.db, req.actor, items.map((item) => item.issue), { withSubscriptions: true });
  return items.map(({ link, issue }) => ({ ...issueView(issue, rel, ctx), epic_issue_id: link.id, relative_position: link.relative_position }));
}

/** Assign and remove answer the association: `{id, epic, issue}`. */
function sendAssociation(ctx: SiteContext, req: Request, res: Response, status: number, item: EpicIssue): void {
  const rel = loadIssueRelations(ctx.db, req.actor, [item.issue]);
  sendJson(res, status, { id: item.link.id, relative_position: item.link.relative_position, epic: epicJson(ctx, namedEpic.of(req)), issue: issueBasic(item.issue, rel, ctx) });
}

/** In order, paged (GitLab 10.x sent the whole list; later versions and the SPEC page it). */
export function listEpicIssuesOf(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = listEpicIssues(ctx.db, req.actor, namedEpic.of(req), page);
  sendPage(req, res, ctx.externalUrl, page, epicIssuesView(ctx, req, result.rows), result.total);
}

export function addEpicIssue(ctx: SiteContext, req: Request, res: Response): void {
  sendAssociation(ctx, req, res, 201, assignEpicIssue(ctx.db, requireActor(req), namedEpic.of(req), issueId.of(req)));
}

export function moveEpicIssueOf(ctx: SiteContext, req: Request, res: Response): void {
  const epic = namedEpic.of(req);
  moveEpicIssue(ctx.db, epic, findEpicIssue(ctx.db, epic, epicIssueId.of(req)).link, epicIssueMoveParams.of(req));
  sendJson(res, 200, epicIssuesView(ctx, req, allEpicIssues(ctx.db, req.actor, epic)));
}

export function removeEpicIssueOf(ctx: SiteContext, req: Request, res: Response): void {
  const item = findEpicIssue(ctx.db, namedEpic.of(req), epicIssueId.of(req));
  removeEpicIssue(ctx.db, item.link);
  sendAssociation(ctx, req, res, 200, item);
}
