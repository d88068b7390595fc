import type { Request, Response } from 'express';
import { createIssue, deleteIssue, updateIssue } from '../../services/issuables/issues.js';
import type { IssuableListSource } from '../../services/issuables/issuable-lists.js';
import { listIssues } from '../../services/issuables/issue-lists.js';
import type { SiteContext } from '../../site-context.js';
import { assertUnmodifiedSince } from '../../services/unmodified-since.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { groupOf, projectOf, requireActor } from '../middleware/guards.js';
import { sendNoContent } from '../respond.js';
import { editableIssue, namedIssue, readableIssue } from './issue-guards.js';
import { issueCreateParams, issueListParams, issueUpdateParams, myIssueListParams } from './issue-params.js';
import { sendIssue, sendIssuePage } from './issue-response.js';

function sendList(ctx: SiteContext, req: Request, res: Response, source: IssuableListSource, read: ReturnType<typeof issueListParams.of>): void {
  const result = listIssues(ctx.db, req.actor, source, read.filters, read.page);
  sendIssuePage(ctx, req, res, read.page, result, read.labelsDetails);
}

export function listProjectIssues(ctx: SiteContext, req: Request, res: Response): void {
  sendList(ctx, req, res, { project: projectOf(req) }, issueListParams.of(req));
}

export function listGroupIssues(ctx: SiteContext, req: Request, res: Response): void {
  sendList(ctx, req, res, { group: groupOf(req) }, issueListParams.of(req));
}

export function listMyIssues(ctx: SiteContext, req: Request, res: Response): void {
  sendList(ctx, req, res, { everywhere: true }, myIssueListParams.of(req));
}

export function showIssue(ctx: SiteContext, req: Request, res: Response): void {
  sendIssue(ctx, req, res, 200, readableIssue.of(req).issue);
}

export function addIssue(ctx: SiteContext, req: Request, res: Response): void {
  const origin = { userAgent: req.get('user-agent') ?? '', ipAddress: req.ip ?? req.socket.remoteAddress ?? '' };
  const created = createIssue(ctx, requireActor(req), projectOf(req), issueCreateParams.of(req), origin);
  sendIssue(ctx, req, res, 201, created.issue);
}

export function editIssue(ctx: SiteContext, req: Request, res: Response): void {
  const updated = updateIssue(ctx, requireActor(req), projectOf(req), editableIssue.of(req), issueUpdateParams.of(req));
  sendIssue(ctx, req, res, 200, updated.issue);
}

export function removeIssue(ctx: SiteContext, req: Request, res: Response): void {
  const issue = namedIssue.of(req);
  assertUnmodifiedSince(unmodifiedSince.of(req), issue.issue.updated_at);
  deleteIssue(ctx, requireActor(req), projectOf(req), issue);
  sendNoContent(res);
}
