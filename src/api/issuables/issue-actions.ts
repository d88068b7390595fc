import type { Request, Response } from 'express';
import { timeStats } from '../../entities/time-stats.js';
import { userBasic } from '../../entities/users.js';
import { findVisibleProject } from '../../services/find-visible.js';
import { getUserAgentDetail } from '../../services/issuables/issues.js';
import { moveIssue } from '../../services/issuables/move-issue.js';
import { issueParticipants } from '../../services/issuables/participants.js';
import { setIssueSubscription } from '../../services/issuables/subscriptions.js';
import { logSpentTime, parseDuration, setTimeEstimate } from '../../services/issuables/time-tracking.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { sendJson } from '../respond.js';
import { namedIssue, readableIssue } from './issue-guards.js';
import { timeTrackingDurationParams, issueMoveParams } from './issue-params.js';
import { sendIssue } from './issue-response.js';

/** GET .../time_stats. */
export function showTimeStats(_ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, timeStats(readableIssue.of(req).issue));
}

/** POST .../time_estimate: the estimate in GitLab's duration text (`3h30m`); 200, as GitLab's `status :ok` (time_tracking_endpoints.rb). */
export function estimateTime(ctx: SiteContext, req: Request, res: Response): void {
  const issue = setTimeEstimate(ctx, requireActor(req), projectOf(req), readableIssue.of(req), parseDuration(timeTrackingDurationParams.of(req)));
  sendJson(res, 200, timeStats(issue));
}

export function resetTimeEstimate(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, timeStats(setTimeEstimate(ctx, requireActor(req), projectOf(req), readableIssue.of(req), 0)));
}

/** POST .../add_spent_time: a duration, negative to subtract. */
export function addSpentTime(ctx: SiteContext, req: Request, res: Response): void {
  const issue = logSpentTime(ctx, requireActor(req), projectOf(req), readableIssue.of(req), parseDuration(timeTrackingDurationParams.of(req)), null);
  sendJson(res, 201, timeStats(issue));
}

/** POST .../reset_spent_time: 200 (`status :ok`); only add_spent_time keeps Grape's 201. */
export function resetSpentTime(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, timeStats(logSpentTime(ctx, requireActor(req), projectOf(req), readableIssue.of(req), 'reset', null)));
}

/** POST .../subscribe and .../unsubscribe: the issue, or 304 when that is already so. */
export function issueSubscriber(subscribed: boolean) {
  return (ctx: SiteContext, req: Request, res: Response): void => {
    const loaded = readableIssue.of(req);
    setIssueSubscription(ctx.db, requireActor(req), loaded.issue, loaded.assigneeIds, subscribed);
    sendIssue(ctx, req, res, 201, loaded.issue);
  };
}

/** POST .../move: the new issue; 404 `Project` for a target the caller may not see. */
export function moveIssueTo(ctx: SiteContext, req: Request, res: Response): void {
  const target = findVisibleProject(ctx.db, req.actor, { id: issueMoveParams.of(req) });
  const moved = moveIssue(ctx, requireActor(req), projectOf(req), namedIssue.of(req), target);
  sendIssue(ctx, req, res, 201, moved.issue);
}

/** GET .../participants: the users taking part who may read the issue, paged. */
export function listParticipants(ctx: SiteContext, req: Request, res: Response): void {
  const loaded = readableIssue.of(req);
  const page = paged.of(req);
  const users = issueParticipants(ctx.db, projectOf(req), loaded.issue, loaded.assigneeIds);
  const rows = users.slice(page.offset, page.offset + page.perPage).map((user) => userBasic(user, ctx));
  sendPage(req, res, ctx.externalUrl, page, rows, users.length);
}

/** GET .../user_agent_detail (admins): what created the issue; 404 `UserAgentDetail` when nothing was recorded. */
export function showUserAgentDetail(ctx: SiteContext, req: Request, res: Response): void {
  const detail = getUserAgentDetail(ctx.db, readableIssue.of(req).issue);
  sendJson(res, 200, { user_agent: detail.user_agent, ip_address: detail.ip_address, akismet_submitted: detail.submitted === 1 });
}
