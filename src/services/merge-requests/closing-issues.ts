import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { assigneeIdsOfIssues } from '../../db/tables/issue-assignees.js';
import { findIssueByIid, issuesByIds, type IssueRow } from '../../db/tables/issues.js';
import { diffCommitsOf } from '../../db/tables/merge-request-diffs.js';
import { closingIssueIdsOf, mergeRequestIdsClosing, replaceClosingIssues } from '../../db/tables/merge-requests-closing-issues.js';
import { mergeRequestsByIds, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import { findProjectByFullPath, findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { projectsByIds } from '../../db/tables/project-relations.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { canReadIssue, canReadMergeRequest, canUpdateIssue } from '../permissions.js';
import { updateIssue } from '../issuables/issues.js';
import type { Actor } from '../users/authentication.js';

/**
 * GitLab's default closing pattern (gitlab.yml issue_closing_pattern): a keyword (close, closes,
 * closed, closing, fix, fixes, fixed, fixing, resolve, resolves, resolved, resolving, implement,
 * implements, implemented, implementing), an optional colon, then one or more issue references
 * joined by commas and `and`: `#12`, `group/project#12`, or an issue URL of this site.
 */
const KEYWORD = String.raw`\b(?:clos(?:e[sd]?|ing)|fix(?:e[sd]|ing)?|resolv(?:e[sd]?|ing)|implement(?:s|ed|ing)?):?`;
const REFERENCE = String.raw`(?:[\w.-]+(?:/[\w.-]+)+)?#\d+|https?://\S+/issues/\d+`;
const CLOSING = new RegExp(String.raw`${KEYWORD} +(?:issues? +)?((?:${REFERENCE})(?:(?: *,? +and +| *, *| +)(?:issues? +)?(?:${REFERENCE}))*)`, 'gi');
const ONE_REFERENCE = new RegExp(REFERENCE, 'gi');

/** An issue a text asks to close: its project's full path (null: the merge request's own project) and iid. */
interface IssueReference {
  readonly path: string | null;
  readonly iid: number;
}

/** The issue references in `text` (`#12`, `group/project#12`, an issue URL of this site at `externalUrl`). */
function issueReferences(text: string, externalUrl: string): IssueReference[] {
  const out: IssueReference[] = [];
  for (const [reference] of text.matchAll(ONE_REFERENCE)) {
    if (/^https?:/i.test(reference)) {
      const prefix = `${externalUrl}/`;
      if (!reference.startsWith(prefix)) continue;
      const url = /^(.+)\/issues\/(\d+)$/.exec(reference.slice(prefix.length));
      if (url) out.push({ path: url[1]!.replace(/\/-$/, ''), iid: Number(url[2]) });
      continue;
    }
    const hash = reference.lastIndexOf('#');
    out.push({ path: hash > 0 ? reference.slice(0, hash) : null, iid: Number(reference.slice(hash + 1)) });
  }
  return out;
}

/** The issues `text` closes by GitLab's closing pattern; `externalUrl` names this site for issue URLs. */
export function closingReferences(text: string, externalUrl: string): IssueReference[] {
  return [...text.matchAll(CLOSING)].flatMap((match) => issueReferences(match[1]!, externalUrl));
}

/** The issues a merge request's references name, resolved against its target project (unknown ones dropped). */
function referencedIssueIds(db: Db, project: ProjectRow, references: readonly IssueReference[]): number[] {
  return references.flatMap((reference) => {
    const home = reference.path === null ? project : findProjectByFullPath(db, reference.path);
    const issue = home ? findIssueByIid(db, home.id, reference.iid) : undefined;
    return issue ? [issue.id] : [];
  });
}

/**
 * Caches which issues the merge request would close (GitLab's merge_requests_closing_issues):
 * references by the closing pattern in its title, description and the commit messages of its
 * latest version, and only while it targets its project's default branch (otherwise none). Runs
 * in the caller's transaction, or its own; a write (create, edit, push) calls it.
 */
export function cacheClosingIssues(ctx: SiteContext, mergeRequest: MergeRequestRow): void {
  const { db } = ctx;
  inTransaction(db, () => {
    const project = findProjectById(db, mergeRequest.target_project_id);
    if (!project) return;
    const issueIds: number[] = [];
    if (mergeRequest.target_branch === project.default_branch) {
      const commits = mergeRequest.latest_merge_request_diff_id === null ? [] : diffCommitsOf(db, mergeRequest.latest_merge_request_diff_id);
      const texts = [mergeRequest.title, mergeRequest.description ?? '', ...commits.map((commit) => commit.message)];
      issueIds.push(...referencedIssueIds(db, project, texts.flatMap((text) => closingReferences(text, ctx.externalUrl))));
    }
    replaceClosingIssues(db, mergeRequest.id, issueIds, nowIso());
  });
}

/** The issues a merge request would close that the actor may see (GET .../closes_issues), with their projects. */
export function closingIssuesVisibleTo(db: Db, actor: Actor | null, mergeRequest: MergeRequestRow): IssueRow[] {
  return visibleIssues(db, actor, issuesByIds(db, closingIssueIdsOf(db, mergeRequest.id)));
}

/**
 * GET .../related_issues (GitLab's MergeRequest#related_issues): the issues it would close and
 * those its title or description mentions, that the actor may see, in id order. Read from stored
 * text: no write.
 */
export function relatedIssuesVisibleTo(db: Db, externalUrl: string, actor: Actor | null, project: ProjectRow, mergeRequest: MergeRequestRow): IssueRow[] {
  const mentioned = referencedIssueIds(db, project, [mergeRequest.title, mergeRequest.description ?? ''].flatMap((text) => issueReferences(text, externalUrl)));
  const ids = [...new Set([...closingIssueIdsOf(db, mergeRequest.id), ...mentioned])].sort((a, b) => a - b);
  return visibleIssues(db, actor, issuesByIds(db, ids));
}

function visibleIssues(db: Db, actor: Actor | null, issues: IssueRow[]): IssueRow[] {
  const projects = projectsByIds(db, issues.map((issue) => issue.project_id));
  const assignees = assigneeIdsOfIssues(db, issues.map((issue) => issue.id));
  return issues.filter((issue) => {
    const project = projects.get(issue.project_id);
    return !!project && canReadIssue(db, actor, project, { ...issue, assigneeIds: assignees.get(issue.id) ?? [] });
  });
}

/** The merge requests that would close the issue and that the actor may read (GET /projects/:id/issues/:iid/closed_by). */
export function mergeRequestsClosingIssue(db: Db, actor: Actor | null, issue: IssueRow): MergeRequestRow[] {
  const mergeRequests = mergeRequestsByIds(db, mergeRequestIdsClosing(db, issue.id));
  const projects = projectsByIds(db, mergeRequests.map((row) => row.target_project_id));
  return mergeRequests.filter((row) => {
    const project = projects.get(row.target_project_id);
    return !!project && canReadMergeRequest(db, actor, project);
  });
}

/**
 * What a merge does to the issues the merge request closes (the merge code calls it after the
 * merge committed): each open one that `actor` (who merged) may edit is closed by them, with the
 * tracker's close (closed_at, closed_by, its event, system note and hooks). Returns the issues closed.
 */
export function closeIssuesOfMergedRequest(ctx: SiteContext, actor: Actor, mergeRequest: MergeRequestRow): IssueRow[] {
  const { db } = ctx;
  const issues = issuesByIds(db, closingIssueIdsOf(db, mergeRequest.id)).filter((issue) => issue.state === 'opened');
  const projects: Map<number, ProjectRow> = projectsByIds(db, issues.map((issue) => issue.project_id));
  const assignees = assigneeIdsOfIssues(db, issues.map((issue) => issue.id));
  const closed: IssueRow[] = [];
  for (const issue of issues) {
    const project = projects.get(issue.project_id);
    const assigneeIds = assignees.get(issue.id) ?? [];
    if (!project || !canUpdateIssue(db, actor, project, { ...issue, assigneeIds })) continue;
    closed.push(updateIssue(ctx, actor, project, { issue, assigneeIds }, { state_event: 'close' }).issue);
  }
  return closed;
}
