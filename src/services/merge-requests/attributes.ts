import type { Db } from '../../db/connection.js';
import type { LabelRow } from '../../db/tables/labels.js';
import type { MergeRequestColumns } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { invalid, type FieldErrors } from '../../errors.js';
import { titleAndDescriptionColumns, usableMilestoneId } from '../issuables/issuable-attributes.js';
import { findOrCreateProjectLabels } from '../issuables/labels.js';
import { projectLabelScope } from '../issuables/scopes.js';
import { userCanReadMergeRequest } from '../permissions.js';

/** What a create or an edit of a merge request may set (GitLab's merge request params); absent keeps the current value. */
export interface MergeRequestInput {
  readonly title?: string;
  readonly description?: string;
  readonly target_branch?: string;
  /** 0 unassigns. */
  readonly assignee_id?: number;
  /** 0, or a milestone the target project may not use, clears it. */
  readonly milestone_id?: number;
  /** Replaces the labels by title; `[]` removes them all. */
  readonly labels?: readonly string[];
  /** The author's choice to remove the source branch after the merge (force_remove_source_branch). */
  readonly remove_source_branch?: boolean;
  readonly squash?: boolean;
  readonly discussion_locked?: boolean;
  readonly allow_maintainer_to_push?: boolean;
}

/** A resolved input: columns to write and the new label set (null: unchanged). */
export interface ResolvedMergeRequestInput {
  readonly columns: MergeRequestColumns;
  readonly labels: LabelRow[] | null;
}

/**
 * Resolves an input against the target project, for a create or an edit. Labels, milestone, assignee and locking need admin_merge_request (`admin`) and are dropped
 * without it, as GitLab's IssuableBaseService#filter_params does; an unknown label title creates a
 * project label; an assignee who could not read the merge request is left out. Runs in the caller's
 * transaction (label creation writes).
 */
export function resolveMergeRequestInput(db: Db, project: ProjectRow, input: MergeRequestInput, admin: boolean): ResolvedMergeRequestInput {
  const errors: FieldErrors = {};
  const columns: MergeRequestColumns = titleAndDescriptionColumns(input, errors);
  if (input.target_branch !== undefined) {
    if (!input.target_branch.trim()) errors.target_branch = ["can't be blank"];
    columns.target_branch = input.target_branch;
  }
  if (Object.keys(errors).length) throw invalid(errors);
  if (input.remove_source_branch !== undefined) columns.force_remove_source_branch = input.remove_source_branch ? 1 : 0;
  if (input.squash !== undefined) columns.squash = input.squash ? 1 : 0;
  if (input.allow_maintainer_to_push !== undefined) columns.allow_maintainer_to_push = input.allow_maintainer_to_push ? 1 : 0;
  if (!admin) return { columns, labels: null };

  if (input.discussion_locked !== undefined) columns.discussion_locked = input.discussion_locked ? 1 : 0;
  if (input.milestone_id !== undefined) columns.milestone_id = usableMilestoneId(db, project, input.milestone_id);
  if (input.assignee_id !== undefined) {
    const user = input.assignee_id === 0 ? undefined : usersByIds(db, [input.assignee_id]).get(input.assignee_id);
    if (input.assignee_id === 0) columns.assignee_id = null;
    else if (user && userCanReadMergeRequest(db, user, project)) columns.assignee_id = user.id;
  }
  const labels = input.labels === undefined ? null : findOrCreateProjectLabels(db, project.id, projectLabelScope(db, project), input.labels);
  return { columns, labels };
}
