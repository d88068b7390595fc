import type { Request, Response } from 'express';
import type { Page, Paged } from '../../db/page.js';
import type { IssueRow } from '../../db/tables/issues.js';
import { issueBasic, issueView } from '../../entities/issues.js';
import { loadIssueRelations } from '../../services/issuables/issue-relations.js';
import type { SiteContext } from '../../site-context.js';
import { sendPage } from '../pagination.js';
import { sendJson } from '../respond.js';

/** One issue as the Issue entity, its relations loaded in one query per kind. */
export function sendIssue(ctx: SiteContext, req: Request, res: Response, status: number, issue: IssueRow): void {
  const rel = loadIssueRelations(ctx.db, req.actor, [issue], { withSubscriptions: true });
  sendJson(res, status, issueView(issue, rel, ctx));
}

/** A page of issues as IssueBasic, with the pagination headers. */
export function sendIssuePage(ctx: SiteContext, req: Request, res: Response, page: Page, result: Paged<IssueRow>, labelsDetails = false): void {
  const rel = loadIssueRelations(ctx.db, req.actor, result.rows);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => issueBasic(row, rel, ctx, { labelsDetails })), result.total);
}
