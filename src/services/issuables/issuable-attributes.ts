import type { Db } from '../../db/connection.js';
import { findMilestoneInScope } from '../../db/tables/milestones.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { FieldErrors } from '../../errors.js';
import { projectMilestoneScope } from './scopes.js';

const TITLE_MAX = 255;
const DESCRIPTION_MAX = 1_000_000;

/**
 * The title (trimmed) and the description an issue or merge request input sets, as columns,
 * validated as GitLab's Issuable does: a title present and at most 255 characters, a description
 * at most 1,000,000; what fails is added to `errors`.
 */
export function titleAndDescriptionColumns(input: { readonly title?: string; readonly description?: string }, errors: FieldErrors): { title?: string; description?: string } {
  const columns: { title?: string; description?: string } = {};
  if (input.title !== undefined) {
    const title = input.title.trim();
    if (!title) errors.title = ["can't be blank"];
    else if (title.length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`];
    columns.title = title;
  }
  if (input.description !== undefined) {
    if (input.description.length > DESCRIPTION_MAX) errors.description = [`is too long (maximum is ${DESCRIPTION_MAX} characters)`];
    columns.description = input.description;
  }
  return columns;
}

/** The milestone an input names when the project may use it; null for 0 or any other (GitLab's filter_milestone clears it). */
export function usableMilestoneId(db: Db, project: ProjectRow, milestoneId: number): number | null {
  const milestone = milestoneId === 0 ? undefined : findMilestoneInScope(db, projectMilestoneScope(db, project), milestoneId);
  return milestone?.id ?? null;
}
