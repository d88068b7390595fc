import type { Request, Response } from 'express';
import { issueLinkView, relatedIssueView } from '../../entities/issue-links.js';
import { findVisibleProject } from '../../services/find-visible.js';
import { createIssueLink, deleteIssueLink, findIssueLink, LINK_TYPES, listRelatedIssues, type LoadedIssueLink } from '../../services/issuables/issue-links.js';
import { loadIssueRelations } from '../../services/issuables/issue-relations.js';
import { findReadableIssue } from '../../services/issuables/issues.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { idOrPath, int, oneOf, required, str } from '../params.js';
import { sendJson } from '../respond.js';
import { readableIssue } from './issue-guards.js';

/** The `:issue_link_id` of a route (400 `issue_link_id is invalid`). */
export const issueLinkId = pathId('issue_link_id');

/** POST .../links: the other issue by project (id or full path) and iid, and the type (default `relates_to`). */
export const issueLinkCreateParams = paramsGuard('issueLinkCreateParams', {
  target_project_id: required(str()),
  target_issue_iid: required(int({ min: 0 })),
  link_type: oneOf(LINK_TYPES),
});

/** GET .../links: the linked issues the caller may read, as RelatedIssue, oldest link first (GitLab does not page it; an issue has at most 100 links). */
export function listIssueLinks(ctx: SiteContext, req: Request, res: Response): void {
  const related = listRelatedIssues(ctx.db, req.actor, readableIssue.of(req).issue);
  const rel = loadIssueRelations(ctx.db, req.actor, related.map((item) => item.row));
  sendJson(res, 200, related.map((item) => relatedIssueView(item.row, item.linkType, rel, ctx)));
}

/** POST .../links: 201 IssueLink; the target is found as GitLab's find_project_issue finds it (404 `Project Not Found`, then `Not found`). */
export function addIssueLink(ctx: SiteContext, req: Request, res: Response): void {
  const params = issueLinkCreateParams.of(req);
  const actor = requireActor(req);
  const targetProject = findVisibleProject(ctx.db, actor, idOrPath(params.target_project_id));
  const target = { ...findReadableIssue(ctx.db, actor, targetProject, params.target_issue_iid), project: targetProject };
  const source = { ...readableIssue.of(req), project: projectOf(req) };
  sendLink(ctx, req, res, 201, createIssueLink(ctx, actor, source, target, params.link_type ?? 'relates_to'));
}

/** GET .../links/:issue_link_id: 200 IssueLink. */
export function showIssueLink(ctx: SiteContext, req: Request, res: Response): void {
  sendLink(ctx, req, res, 200, loadLink(ctx, req));
}

/** DELETE .../links/:issue_link_id: 200 with the IssueLink removed. */
export function removeIssueLink(ctx: SiteContext, req: Request, res: Response): void {
  const loaded = loadLink(ctx, req);
  deleteIssueLink(ctx, requireActor(req), loaded);
  sendLink(ctx, req, res, 200, loaded);
}

function loadLink(ctx: SiteContext, req: Request): LoadedIssueLink {
  return findIssueLink(ctx.db, req.actor, { project: projectOf(req), issue: readableIssue.of(req).issue }, issueLinkId.of(req));
}

function sendLink(ctx: SiteContext, req: Request, res: Response, status: number, loaded: LoadedIssueLink): void {
  const rel = loadIssueRelations(ctx.db, req.actor, [loaded.source.issue, loaded.target.issue]);
  sendJson(res, status, issueLinkView(loaded.link, loaded.source.issue, loaded.target.issue, rel, ctx));
}
