import type { Db } from '../../db/connection.js';
import type { LabelRow } from '../../db/tables/labels.js';
import type { MergeRequestColumns } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { invalid, type FieldErrors } from '../../errors.js';
import { titleAndDescriptionColumns, usableMilestoneId } from '../issuables/issuable-attributes.js';
import { resolveLabels } from '../issuables/issue-attributes.js';
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
  /** GitLab 17's list form: the first user who qualifies becomes the assignee (one per merge request here); `[]` or `[0]` unassigns. */
  readonly assignee_ids?: readonly number[];
  /** The reviewers, replacing the current ones; `[]` or `[0]` removes them all. */
  readonly reviewer_ids?: readonly number[];
  /** Replaces the labels by title; `[]` removes them all. `add_labels` and `remove_labels` change some. */
  readonly labels?: readonly string[];
  readonly add_labels?: readonly string[];
  readonly remove_labels?: readonly string[];
  /** Not mergeable before this time (GitLab 17.8); null clears it. */
  readonly merge_after?: string | null;
  /** The author's choice to remove the source branch after the merge (force_remove_source_branch). */
  readonly remove_source_branch?: boolean;
  readonly squash?: boolean;
  readonly discussion_locked?: boolean;
  readonly allow_maintainer_to_push?: boolean;
}

/** A resolved input: columns to write, the new label set and the new reviewer ids (null: unchanged). */
export interface ResolvedMergeRequestInput {
  readonly columns: MergeRequestColumns;
  readonly labels: LabelRow[] | null;
  readonly reviewerIds: number[] | null;
}

/** The users of `ids` (0 dropped) who exist and could read the target project's merge requests, in the order given. */
function readersAmong(db: Db, project: ProjectRow, ids: readonly number[]): number[] {
  const wanted = [...new Set(ids.filter((id) => id !== 0))];
  const users = usersByIds(db, wanted);
  return wanted.filter((id) => {
    const user = users.get(id);
    return !!user && userCanReadMergeRequest(db, user, project);
  });
}

/**
 * Resolves an input against the target project, for a create or an edit. Labels, milestone,
 * assignees, reviewers and locking need admin_merge_request (`admin`) and are dropped without it,
 * as GitLab's IssuableBaseService#filter_params does; an unknown label title creates a project
 * label; an assignee or reviewer who could not read the merge request is left out. Runs in the
 * caller's transaction (label creation writes).
 */
export function resolveMergeRequestInput(db: Db, project: ProjectRow, currentLabels: readonly LabelRow[], input: MergeRequestInput, admin: boolean): ResolvedMergeRequestInput {
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
  if (input.merge_after !== undefined) columns.merge_after = input.merge_after;
  if (!admin) return { columns, labels: null, reviewerIds: null };

  if (input.discussion_locked !== undefined) columns.discussion_locked = input.discussion_locked ? 1 : 0;
  if (input.milestone_id !== undefined) columns.milestone_id = usableMilestoneId(db, project, input.milestone_id);
  if (input.assignee_id !== undefined) {
    const user = input.assignee_id === 0 ? undefined : usersByIds(db, [input.assignee_id]).get(input.assignee_id);
    if (input.assignee_id === 0) columns.assignee_id = null;
    else if (user && userCanReadMergeRequest(db, user, project)) columns.assignee_id = user.id;
  }
  if (input.assignee_ids !== undefined) {
    const [first] = readersAmong(db, project, input.assignee_ids);
    // A list naming nobody who qualifies leaves the assignee as it is, as the issues' assignee_ids do.
    if (first !== undefined || input.assignee_ids.every((id) => id === 0)) columns.assignee_id = first ?? null;
  }
  const reviewerIds = input.reviewer_ids === undefined ? null : readersAmong(db, project, input.reviewer_ids);
  return { columns, labels: resolveLabels(db, project, currentLabels, input), reviewerIds };
}
