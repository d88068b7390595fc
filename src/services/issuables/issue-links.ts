import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { assigneeIdsOf, assigneeIdsOfIssues } from '../../db/tables/issue-assignees.js';
import { countIssueLinks, deleteIssueLinkRow, findIssueLinkBetween, findIssueLinkOf, insertIssueLink, linkedIssues, type IssueLinkRow, type LinkedIssueRow } from '../../db/tables/issue-links.js';
import { findIssueById, type IssueRow } from '../../db/tables/issues.js';
import { projectFullPaths, projectsByIds } from '../../db/tables/project-relations.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { AppError, conflict, forbidden, notFound } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { canLinkIssue, canReadIssue } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import type { LoadedIssue } from './issues.js';
import { issueNoteable } from './noteables.js';
import { addSystemNote } from './notes.js';
import { issueReference } from './system-note-texts.js';

/** What a caller may ask for; `is_blocked_by` is kept as `blocks` from the other side (GitLab 17). */
export const LINK_TYPES = ['relates_to', 'blocks', 'is_blocked_by'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

/** GitLab's IssuableLink::MAX_LINKS_COUNT: an issue takes no more links than this. */
const MAX_LINKS = 100;

/** An issue with its project, as either end of a link. */
export interface LinkEnd {
  readonly project: ProjectRow;
  readonly issue: IssueRow;
}

/** A link with both of its issues. */
export interface LoadedIssueLink {
  readonly link: IssueLinkRow;
  readonly source: LinkEnd;
  readonly target: LinkEnd;
}

/** A linked issue and how it relates to the issue the list is about. */
export interface RelatedIssue {
  readonly row: LinkedIssueRow;
  /** The relation read from the listed issue's side: a `blocks` link reads as `is_blocked_by` from its target. */
  readonly linkType: LinkType;
}

/**
 * The issues linked to `issue` that the actor may read, oldest link first (GitLab's
 * Issue#related_issues): a confidential or private one stays out, as if it were not linked.
 */
export function listRelatedIssues(db: Db, actor: Actor | null, issue: IssueRow): RelatedIssue[] {
  const rows = linkedIssues(db, issue.id);
  const projects = projectsByIds(db, rows.map((row) => row.project_id));
  const assignees = assigneeIdsOfIssues(db, rows.map((row) => row.id));
  return rows
    .filter((row) => canReadIssue(db, actor, projects.get(row.project_id)!, { ...row, assigneeIds: assignees.get(row.id) ?? [] }))
    .map((row) => ({ row, linkType: row.issue_link_source_id === row.id ? inverse(row.issue_link_type) : row.issue_link_type }));
}

const inverse = (type: IssueLinkRow['link_type']): LinkType => (type === 'blocks' ? 'is_blocked_by' : type);

/**
 * The link `linkId` of the issue, either end (GitLab's for_source_or_target): 404 `Not found`
 * when the issue has no such link or the actor may not read its other issue.
 */
export function findIssueLink(db: Db, actor: Actor | null, end: LinkEnd, linkId: number): LoadedIssueLink {
  const link = findIssueLinkOf(db, end.issue.id, linkId);
  if (!link) throw notFound();
  const otherId = link.source_id === end.issue.id ? link.target_id : link.source_id;
  const other = readableEnd(db, actor, otherId);
  if (!other) throw notFound();
  return link.source_id === end.issue.id ? { link, source: end, target: other } : { link, source: other, target: end };
}

function readableEnd(db: Db, actor: Actor | null, issueId: number): LinkEnd | null {
  const issue = findIssueById(db, issueId);
  if (!issue) return null;
  const project = projectsByIds(db, [issue.project_id]).get(issue.project_id)!;
  return canReadIssue(db, actor, project, { ...issue, assigneeIds: assigneeIdsOf(db, issue.id) }) ? { project, issue } : null;
}

/** Whether the actor may link or unlink the issue (admin_issue_link: guest and up, and reads it). */
const linkable = (db: Db, actor: Actor, end: LinkEnd) => canLinkIssue(db, actor, end.project, { ...end.issue, assigneeIds: assigneeIdsOf(db, end.issue.id) });

/**
 * Links two issues the actor reads (GitLab 17's IssueLinks::CreateService), in its order of checks:
 * `blocks` and `is_blocked_by` on the ce edition (403, a licensed feature), issues already linked
 * either way (409 `Issue(s) already assigned`), an issue the actor may not link (403), then the
 * link's own validations (422: an issue linked to itself, more than 100 links). `is_blocked_by`
 * is written as `blocks` with the ends swapped. Both issues get GitLab's system note.
 */
export function createIssueLink(ctx: SiteContext, actor: Actor, source: LoadedIssue & { project: ProjectRow }, target: LoadedIssue & { project: ProjectRow }, type: LinkType): LoadedIssueLink {
  const { db } = ctx;
  if (type !== 'relates_to' && ctx.config.edition !== 'ee') throw forbidden('Blocked issues not available for current license');
  return inTransaction(db, () => {
    if (source.issue.id !== target.issue.id && findIssueLinkBetween(db, source.issue.id, target.issue.id)) throw conflict('Issue(s) already assigned');
    if (!linkable(db, actor, target) || !linkable(db, actor, source)) throw forbidden("Couldn't link issues. You must have at least the Guest role in both projects.");
    const reference = `#${target.issue.iid}`;
    if (source.issue.id === target.issue.id) throw new AppError('unprocessable', `${reference} cannot be added: cannot be related to itself`);
    for (const end of [source, target]) {
      if (countIssueLinks(db, end.issue.id) >= MAX_LINKS) {
        throw new AppError('unprocessable', `${reference} cannot be added: This issue would exceed the maximum number of linked issues (${MAX_LINKS}).`);
      }
    }
    const [from, to] = type === 'is_blocked_by' ? [target, source] : [source, target];
    const at = nowIso();
    const id = insertIssueLink(db, { source_id: from.issue.id, target_id: to.issue.id, link_type: type === 'relates_to' ? 'relates_to' : 'blocks', created_at: at, updated_at: at });
    const link: IssueLinkRow = { id, source_id: from.issue.id, target_id: to.issue.id, link_type: type === 'relates_to' ? 'relates_to' : 'blocks', created_at: at, updated_at: at };
    const [fromText, toText] = link.link_type === 'blocks' ? ['marked this issue as blocking', 'marked this issue as blocked by'] : ['marked this issue as related to', 'marked this issue as related to'];
    noteBothEnds(db, actor, from, to, fromText, toText, at);
    return { link, source: from, target: to };
  });
}

/**
 * Removes a link (GitLab 17's IssueLinks::DestroyService): the actor must be able to link both of
 * its issues, else 404 (GitLab's `No Issue Link found`, here `404 Not found`); both get "removed the relation with".
 */
export function deleteIssueLink(ctx: SiteContext, actor: Actor, loaded: LoadedIssueLink): void {
  const { db } = ctx;
  if (!linkable(db, actor, loaded.source) || !linkable(db, actor, loaded.target)) throw notFound();
  inTransaction(db, () => {
    deleteIssueLinkRow(db, loaded.link.id);
    noteBothEnds(db, actor, loaded.source, loaded.target, 'removed the relation with', 'removed the relation with', nowIso());
  });
}

/** "<text> <reference of the other issue>" on each end, the reference relative to the noted issue's project. */
function noteBothEnds(db: Db, actor: Actor, a: LinkEnd, b: LinkEnd, aText: string, bText: string, at: string): void {
  const paths = projectFullPaths(db, [a.project.id, b.project.id]);
  const ref = (end: LinkEnd, from: LinkEnd) => issueReference({ project: end.project, fullPath: paths.get(end.project.id)!, iid: end.issue.iid }, from.project);
  addSystemNote(db, issueNoteable(a.project, a.issue), actor.user.id, `${aText} ${ref(b, a)}`, at);
  addSystemNote(db, issueNoteable(b.project, b.issue), actor.user.id, `${bText} ${ref(a, b)}`, at);
}
