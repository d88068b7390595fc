import type { Request, Response } from 'express';
import { projectFullPaths } from '../../db/tables/project-relations.js';
import { pipelineBasic } from '../../entities/ci.js';
import { issueBasic } from '../../entities/issues.js';
import type { IssueRow } from '../../db/tables/issues.js';
import { reviewersOfMergeRequests } from '../../db/tables/merge-request-reviewers.js';
import { diffCommitEntity, diffFileEntity, mergeRequestChanges, mergeRequestDiffFull, mergeRequestDiffView, mergeRequestReviewerView } from '../../entities/merge-requests.js';
import { timeStats } from '../../entities/time-stats.js';
import { todoView } from '../../entities/todos.js';
import { userBasic } from '../../entities/users.js';
import { loadTodoRelations } from '../../services/issuables/todo-relations.js';
import { loadIssueRelations } from '../../services/issuables/issue-relations.js';
import { closingIssuesVisibleTo, mergeRequestsClosingIssue, relatedIssuesVisibleTo } from '../../services/merge-requests/closing-issues.js';
import { mergeRequestsOfCommit } from '../../services/merge-requests/commit-merge-requests.js';
import { mergeRequestParticipants } from '../../services/merge-requests/participants.js';
import { loadMergeRequestRelations } from '../../services/merge-requests/relations.js';
import { setMergeRequestSubscription } from '../../services/merge-requests/subscriptions.js';
import { logMergeRequestSpentTime, setMergeRequestTimeEstimate } from '../../services/merge-requests/time-tracking.js';
import { markMergeRequestTodo } from '../../services/merge-requests/todos.js';
import { parseDuration } from '../../services/issuables/time-tracking.js';
import { timeTrackingDurationParams } from '../issuables/issue-params.js';
import { mergeRequestCommits, mergeRequestFiles, mergeRequestFilesPage, mergeRequestPipelines, mergeRequestVersion, mergeRequestVersions } from '../../services/merge-requests/versions.js';
import type { SiteContext } from '../../site-context.js';
import { readableIssue } from '../issuables/issue-guards.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { sendJson } from '../respond.js';
import { namedMergeRequest, readableMergeRequest } from './guards.js';
import { commitMergeRequestsParams, versionId } from './params.js';
import { sendMergeRequest, sendMergeRequestPage } from './response.js';

/** GET .../participants: the users taking part who may read it, paged. */
export function listParticipants(ctx: SiteContext, req: Request, res: Response): void {
  const users = mergeRequestParticipants(ctx.db, projectOf(req), readableMergeRequest.of(req));
  const page = paged.of(req);
  sendPage(req, res, ctx.externalUrl, page, users.slice(page.offset, page.offset + page.perPage).map((user) => userBasic(user, ctx)), users.length);
}

/** GET .../commits: the latest version's commits, newest first. */
export function listCommits(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = mergeRequestCommits(ctx.db, readableMergeRequest.of(req), page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(diffCommitEntity), result.total);
}

/** GET .../changes: the merge request with its latest version's files. */
export function showChanges(ctx: SiteContext, req: Request, res: Response): void {
  const mergeRequest = readableMergeRequest.of(req);
  const rel = loadMergeRequestRelations(ctx.db, req.actor, [mergeRequest], { edition: ctx.config.edition, single: true });
  sendJson(res, 200, mergeRequestChanges(mergeRequest, rel, ctx, mergeRequestFiles(ctx.db, mergeRequest)));
}

/** GET .../diffs: the latest version's files, paged. */
export function listDiffs(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = mergeRequestFilesPage(ctx.db, readableMergeRequest.of(req), page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(diffFileEntity), result.total);
}

/** GET .../versions: newest first. */
export function listVersions(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = mergeRequestVersions(ctx.db, readableMergeRequest.of(req), page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(mergeRequestDiffView), result.total);
}

/** GET .../versions/:version_id: one version with its commits and diffs. */
export function showVersion(ctx: SiteContext, req: Request, res: Response): void {
  const { version, commits, files } = mergeRequestVersion(ctx.db, readableMergeRequest.of(req), versionId.of(req));
  sendJson(res, 200, mergeRequestDiffFull(version, commits, files));
}

/** GET .../reviewers: GitLab 17's MergeRequestReviewer for each reviewer (user, state, when asked), unpaged as GitLab. */
export function listReviewers(ctx: SiteContext, req: Request, res: Response): void {
  const mergeRequest = readableMergeRequest.of(req);
  const reviewers = reviewersOfMergeRequests(ctx.db, [mergeRequest.id]).get(mergeRequest.id) ?? [];
  sendJson(res, 200, reviewers.map(({ reviewer, user }) => mergeRequestReviewerView(reviewer, user, ctx)));
}

/** GET .../related_issues: the issues it closes or mentions that the caller may see, paged. */
export function listRelatedIssues(ctx: SiteContext, req: Request, res: Response): void {
  const issues = relatedIssuesVisibleTo(ctx.db, ctx.externalUrl, req.actor, projectOf(req), readableMergeRequest.of(req));
  sendIssuePage(ctx, req, res, issues);
}

/** GET /projects/:id/repository/commits/:sha/merge_requests (`state` optional), as MergeRequestBasic. */
export async function listCommitMergeRequests(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { state, page } = commitMergeRequestsParams.of(req);
  sendMergeRequestPage(ctx, req, res, page, await mergeRequestsOfCommit(ctx, projectOf(req), String(req.params.sha), state, page), false);
}

/** A page of issues out of a whole list, as IssueBasic. */
function sendIssuePage(ctx: SiteContext, req: Request, res: Response, issues: readonly IssueRow[]): void {
  const page = paged.of(req);
  const rows = issues.slice(page.offset, page.offset + page.perPage);
  const rel = loadIssueRelations(ctx.db, req.actor, rows);
  sendPage(req, res, ctx.externalUrl, page, rows.map((issue) => issueBasic(issue, rel, ctx)), issues.length);
}

/** GET .../closes_issues: the issues merging would close that the caller may see. */
export function listClosesIssues(ctx: SiteContext, req: Request, res: Response): void {
  sendIssuePage(ctx, req, res, closingIssuesVisibleTo(ctx.db, req.actor, readableMergeRequest.of(req)));
}

/** GET .../pipelines: the source project's pipelines on the merge request's commits. */
export function listPipelines(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const mergeRequest = readableMergeRequest.of(req);
  const result = mergeRequestPipelines(ctx.db, req.actor, mergeRequest, page);
  const paths = projectFullPaths(ctx.db, result.rows.map((row) => row.project_id));
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => pipelineBasic(row, { projectPath: paths.get(row.project_id) ?? '' }, ctx)), result.total);
}

/** POST .../subscribe and .../unsubscribe: the merge request, or 304 when that is already so. */
export function mergeRequestSubscriber(subscribed: boolean) {
  return (ctx: SiteContext, req: Request, res: Response): void => {
    const mergeRequest = readableMergeRequest.of(req);
    setMergeRequestSubscription(ctx.db, requireActor(req), mergeRequest, subscribed);
    sendMergeRequest(ctx, req, res, 201, mergeRequest);
  };
}

/** GET /projects/:id/issues/:issue_iid/closed_by (and related_merge_requests): the merge requests that close the issue when merged. */
export function listIssueClosers(ctx: SiteContext, req: Request, res: Response): void {
  const rows = mergeRequestsClosingIssue(ctx.db, req.actor, readableIssue.of(req).issue);
  const page = paged.of(req);
  sendMergeRequestPage(ctx, req, res, page, { rows: rows.slice(page.offset, page.offset + page.perPage), total: rows.length }, false);
}

/** POST .../todo: 201 with the new `marked` todo, 304 when the caller has a pending one about it. */
export function markTodo(ctx: SiteContext, req: Request, res: Response): void {
  const actor = requireActor(req);
  const todo = markMergeRequestTodo(ctx.db, actor, projectOf(req), namedMergeRequest.of(req));
  sendJson(res, 201, todoView(todo, loadTodoRelations(ctx.db, ctx.config.edition, actor, [todo]), ctx));
}

/** GET .../time_stats. */
export function showTimeStats(_ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, timeStats(readableMergeRequest.of(req)));
}

/** POST .../time_estimate (a duration) and .../reset_time_estimate: 200, as GitLab's `status :ok` (time_tracking_endpoints.rb). */
export function estimateTime(reset: boolean) {
  return (ctx: SiteContext, req: Request, res: Response): void => {
    const seconds = reset ? 0 : parseDuration(timeTrackingDurationParams.of(req));
    sendJson(res, 200, timeStats(setMergeRequestTimeEstimate(ctx, requireActor(req), projectOf(req), readableMergeRequest.of(req), seconds)));
  };
}

/** POST .../add_spent_time (a duration, negative to subtract; Grape's 201) and .../reset_spent_time (200, `status :ok`). */
export function spendTime(reset: boolean) {
  return (ctx: SiteContext, req: Request, res: Response): void => {
    const seconds = reset ? 'reset' : parseDuration(timeTrackingDurationParams.of(req));
    sendJson(res, reset ? 200 : 201, timeStats(logMergeRequestSpentTime(ctx, requireActor(req), projectOf(req), readableMergeRequest.of(req), seconds)));
  };
}
