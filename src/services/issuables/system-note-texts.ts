import type { LabelRow } from '../../db/tables/labels.js';
import type { MilestoneRow } from '../../db/tables/milestones.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { UserRow } from '../../db/tables/users.js';
import { humanDuration } from '../../entities/time-stats.js';

/**
 * The bodies of GitLab's system notes (SystemNoteService, GitLab 12.x-13.x), as Markdown with
 * GitLab's references: `~12` for a label (by id), `%3` for a project milestone (by iid) and
 * `%"title"` for a group's, `@username` for a user, `path#iid` for an issue elsewhere.
 */

/** Ruby's Array#to_sentence: `a`, `a and b`, `a, b, and c`. */
function toSentence(items: readonly string[]): string {
  if (items.length <= 2) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/**
 * "changed title from **old** to **new**", the changed middle of each marked as GitLab's inline
 * diff does (the longest common prefix and suffix stay plain; `{-removed-}` and `{+added+}`).
 */
export function titleChangeText(before: string, after: string): string {
  let prefix = 0;
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < before.length - prefix && suffix < after.length - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix += 1;
  const mark = (text: string, sign: '-' | '+') => {
    const middle = text.slice(prefix, text.length - suffix);
    return `${text.slice(0, prefix)}${middle ? `{${sign}${middle}${sign}}` : ''}${text.slice(text.length - suffix)}`;
  };
  return `changed title from **${before === '' ? before : mark(before, '-')}** to **${mark(after, '+')}**`;
}

/** "added ~1 ~2 labels", "removed ~3 label", "added ~1 and removed ~2 labels". */
export function labelChangeText(added: readonly LabelRow[], removed: readonly LabelRow[]): string {
  const parts: string[] = [];
  if (added.length) parts.push(`added ${added.map((label) => `~${label.id}`).join(' ')}`);
  if (added.length && removed.length) parts.push('and');
  if (removed.length) parts.push(`removed ${removed.map((label) => `~${label.id}`).join(' ')}`);
  parts.push(added.length + removed.length === 1 ? 'label' : 'labels');
  return parts.join(' ');
}

/** "changed milestone to %1" (a group milestone by its quoted title), or "removed milestone". */
export function milestoneChangeText(milestone: MilestoneRow | null): string {
  if (!milestone) return 'removed milestone';
  const reference = milestone.group_id !== null && !milestone.title.includes('"') ? `%"${milestone.title}"` : `%${milestone.iid}`;
  return `changed milestone to ${reference}`;
}

/** "assigned to @a and @b", "unassigned @c", or both joined by "and" (GitLab's change_issuable_assignees). */
export function assigneesChangeText(added: readonly UserRow[], removed: readonly UserRow[]): string {
  const parts: string[] = [];
  if (added.length) parts.push(`assigned to ${toSentence(added.map((user) => `@${user.username}`))}`);
  if (removed.length) parts.push(`unassigned ${toSentence(removed.map((user) => `@${user.username}`))}`);
  return parts.join(' and ');
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "changed due date to March 2, 2030" (Rails' long date), or "removed due date". */
export function dueDateChangeText(dueDate: string | null): string {
  if (!dueDate) return 'removed due date';
  const [year, month, day] = dueDate.split('-').map(Number);
  return `changed due date to ${MONTHS[month - 1]} ${day}, ${year}`;
}

/** "changed time estimate to 1w 2d", or "removed time estimate". */
export function timeEstimateText(seconds: number): string {
  return seconds === 0 ? 'removed time estimate' : `changed time estimate to ${humanDuration(seconds)}`;
}

/** "added 1h 30m of time spent", "subtracted 30m of time spent", or "removed time spent". */
export function timeSpentText(spent: number | 'reset'): string {
  if (spent === 'reset') return 'removed time spent';
  return `${spent > 0 ? 'added' : 'subtracted'} ${humanDuration(Math.abs(spent))} of time spent`;
}

/**
 * How an issue in `target` is referred to from `from` (Issue#to_reference): `#iid` in the same
 * project, `project#iid` in the same namespace, `full/path#iid` elsewhere.
 */
export function issueReference(target: { project: ProjectRow; fullPath: string; iid: number }, from: ProjectRow): string {
  if (target.project.id === from.id) return `#${target.iid}`;
  if (target.project.namespace_id === from.namespace_id) return `${target.project.path}#${target.iid}`;
  return `${target.fullPath}#${target.iid}`;
}
