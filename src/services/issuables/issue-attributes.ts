import type { Db } from '../../db/connection.js';
import type { IssueColumns, IssueRow } from '../../db/tables/issues.js';
import type { LabelRow } from '../../db/tables/labels.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { invalid, type FieldErrors } from '../../errors.js';
import { userCanReadIssue } from '../permissions.js';
import { titleAndDescriptionColumns, usableMilestoneId } from './issuable-attributes.js';
import { findOrCreateProjectLabels } from './labels.js';
import { projectLabelScope } from './scopes.js';

/** What a create or an edit of an issue may set (GitLab's issue_params); absent keeps the current value. */
export interface IssueInput {
  readonly title?: string;
  readonly description?: string;
  /** Replaces the assignees; `[]` or `[0]` unassigns everyone. */
  readonly assignee_ids?: readonly number[];
  /** Deprecated single assignee; 0 unassigns. */
  readonly assignee_id?: number;
  /** 0, or a milestone the project may not use, clears it (GitLab's filter_milestone). */
  readonly milestone_id?: number;
  /** Replaces the labels by title; `add_labels` and `remove_labels` change some. */
  readonly labels?: readonly string[];
  readonly add_labels?: readonly string[];
  readonly remove_labels?: readonly string[];
  /** `YYYY-MM-DD`, or null to clear. */
  readonly due_date?: string | null;
  readonly confidential?: boolean;
  readonly discussion_locked?: boolean;
  readonly weight?: number | null;
  /** Owners and admins only; ignored for anyone else, as GitLab drops it. */
  readonly created_at?: string;
  readonly updated_at?: string;
}

/** What the caller may set beyond title, description and state. */
export interface IssuePowers {
  /** admin_issue: labels, milestone, assignees, due date, confidentiality, locking, weight. */
  readonly admin: boolean;
  /** set_issue_created_at: backdating. */
  readonly backdate: boolean;
}

/** An input resolved against the project: columns to write, and the new label and assignee sets (null: unchanged). */
export interface ResolvedIssueInput {
  readonly columns: IssueColumns;
  readonly labels: LabelRow[] | null;
  readonly assigneeIds: number[] | null;
}

/**
 * Resolves an input for a new issue (`current` null) or an edit. Attributes the caller may not
 * set are dropped, not refused, as GitLab's IssuableBaseService#filter_params does; an unknown
 * label title creates a project label; assignees who could not read the issue are left out.
 * Runs in the caller's transaction (label creation writes).
 */
export function resolveIssueInput(
  db: Db,
  project: ProjectRow,
  current: IssueRow | null,
  currentLabels: readonly LabelRow[],
  currentAssigneeIds: readonly number[],
  input: IssueInput,
  powers: IssuePowers,
): ResolvedIssueInput {
  const errors: FieldErrors = {};
  const columns: IssueColumns = titleAndDescriptionColumns(input, errors);
  if (input.weight !== undefined && input.weight !== null && input.weight < 0) errors.weight = ['must be greater than or equal to 0'];
  if (Object.keys(errors).length) throw invalid(errors);
  if (powers.backdate && input.created_at !== undefined && current === null) columns.created_at = input.created_at;
  if (powers.backdate && input.updated_at !== undefined && current !== null) columns.updated_at = input.updated_at;
  if (!powers.admin) return { columns, labels: null, assigneeIds: null };

  if (input.due_date !== undefined) columns.due_date = input.due_date;
  if (input.confidential !== undefined) columns.confidential = input.confidential ? 1 : 0;
  if (input.discussion_locked !== undefined) columns.discussion_locked = input.discussion_locked ? 1 : 0;
  if (input.weight !== undefined) columns.weight = input.weight;
  if (input.milestone_id !== undefined) columns.milestone_id = usableMilestoneId(db, project, input.milestone_id);
  return { columns, labels: resolveLabels(db, project, currentLabels, input), assigneeIds: resolveAssignees(db, project, current, currentAssigneeIds, input) };
}

/** The labels an input asks for (`labels` replaces, then `add_labels` and `remove_labels` change); null when it names none. Merge requests use it too. */
export function resolveLabels(db: Db, project: ProjectRow, currentLabels: readonly LabelRow[], input: Pick<IssueInput, 'labels' | 'add_labels' | 'remove_labels'>): LabelRow[] | null {
  if (input.labels === undefined && input.add_labels === undefined && input.remove_labels === undefined) return null;
  const scope = projectLabelScope(db, project);
  let labels = input.labels !== undefined ? findOrCreateProjectLabels(db, project.id, scope, input.labels) : [...currentLabels];
  if (input.add_labels?.length) {
    for (const label of findOrCreateProjectLabels(db, project.id, scope, input.add_labels)) if (!labels.some((l) => l.id === label.id)) labels.push(label);
  }
  if (input.remove_labels?.length) {
    const removed = new Set(input.remove_labels.map((title) => title.trim()));
    labels = labels.filter((label) => !removed.has(label.title));
  }
  return labels;
}

/**
 * The assignees an input asks for, keeping only users who exist and could read the issue (a new
 * issue: its project's issues; an existing one: the issue itself, as GitLab's assignee_can_read?);
 * null when it names none that qualify.
 */
function resolveAssignees(db: Db, project: ProjectRow, current: IssueRow | null, currentAssigneeIds: readonly number[], input: IssueInput): number[] | null {
  const asked = input.assignee_ids ?? (input.assignee_id !== undefined ? [input.assignee_id] : undefined);
  if (asked === undefined) return null;
  const ids = [...new Set(asked)].filter((id) => id !== 0);
  if (!ids.length) return [];
  const users = usersByIds(db, ids);
  const allowed = ids.filter((id) => {
    const user = users.get(id);
    if (!user) return false;
    const issue = current ? { ...current, assigneeIds: currentAssigneeIds } : { author_id: user.id, confidential: 0, assigneeIds: [] };
    return userCanReadIssue(db, user, project, issue);
  });
  return allowed.length ? allowed : null;
}
