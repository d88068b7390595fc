import type { IssueLinkRow, LinkedIssueRow } from '../db/tables/issue-links.js';
import type { IssueRow } from '../db/tables/issues.js';
import { isoTime } from './column-values.js';
import { issueBasic, issueView, type IssueRelations } from './issues.js';
import type { EntityContext } from './users.js';

/**
 * RelatedIssue (ENT): the Issue entity without `subscribed` (GitLab presents it with
 * include_subscribed: false), and the link it is reached through, its type read from the side of
 * the issue whose links are listed.
 */
export function relatedIssueView(row: LinkedIssueRow, linkType: string, rel: IssueRelations, ctx: EntityContext) {
  const { subscribed: _subscribed, ...issue } = issueView(row, rel, ctx);
  return {
    ...issue,
    issue_link_id: row.issue_link_id,
    link_type: linkType,
    link_created_at: isoTime(row.issue_link_created_at),
    link_updated_at: isoTime(row.issue_link_updated_at),
  };
}

/** IssueLink (ENT): both issues as IssueBasic and the stored type (`blocks` for an `is_blocked_by` request, its ends swapped). */
export function issueLinkView(link: IssueLinkRow, source: IssueRow, target: IssueRow, rel: IssueRelations, ctx: EntityContext) {
  return { source_issue: issueBasic(source, rel, ctx), target_issue: issueBasic(target, rel, ctx), link_type: link.link_type };
}
