import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { deleteListsOfLabel } from '../../db/tables/board-lists.js';
import { deleteLabelLinksOfLabel, issueCountsOfLabels, openMergeRequestCountsOfLabels } from '../../db/tables/label-links.js';
import { deleteLabelPriorities, labelPrioritiesIn, removeLabelPriority, setLabelPriority } from '../../db/tables/label-priorities.js';
import {
  deleteLabelRow,
  findLabelById,
  findLabelInScope,
  findLabelsByTitles,
  insertLabel,
  labelsInScopeQuery,
  updateLabelRow,
  type LabelColumns,
  type LabelRow,
  type LabelScope,
} from '../../db/tables/labels.js';
import { deleteSubscriptionsOf } from '../../db/tables/subscriptions.js';
import type { LabelFacts } from '../../entities/labels.js';
import { conflict, invalid, notFound, type FieldErrors } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { readableIssuesAnywhere, readableMergeRequestsAnywhere } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { labelColor } from './css-colors.js';
import { subscribedLabelIds } from './subscriptions.js';

/** A label as the views show it: the row, the facts about it for the caller, its priority in the project asked about. */
export interface LabelWithFacts {
  readonly label: LabelRow;
  readonly facts: LabelFacts;
  readonly priority: number | null;
}

/** GitLab's label colour when none is given (an issue's unknown label name creates one). */
const DEFAULT_LABEL_COLOR = '#428BCA';

const TITLE_MAX = 255;

/**
 * The facts of each label for the caller, one query per kind: issue counts (only issues the caller
 * may read), open merge requests (only those the caller may read), subscriptions and priorities
 * (site-wide or in `projectId`).
 */
export function withLabelFacts(db: Db, actor: Actor | null, labels: readonly LabelRow[], projectId: number | null): LabelWithFacts[] {
  const ids = labels.map((label) => label.id);
  const counts = issueCountsOfLabels(db, ids, readableIssuesAnywhere(actor));
  const openMergeRequests = openMergeRequestCountsOfLabels(db, ids, readableMergeRequestsAnywhere(actor));
  const subscribed = subscribedLabelIds(db, actor, labels, projectId);
  const priorities = projectId === null ? new Map<number, number>() : labelPrioritiesIn(db, projectId, ids);
  return labels.map((label) => ({
    label,
    facts: {
      openIssues: counts.get(label.id)?.opened ?? 0,
      closedIssues: counts.get(label.id)?.closed ?? 0,
      openMergeRequests: openMergeRequests.get(label.id) ?? 0,
      subscribed: subscribed.has(label.id),
    },
    priority: priorities.get(label.id) ?? null,
  }));
}

/** A page of the scope's labels by title, optionally only those whose title or description has `search`. */
export function listLabels(db: Db, scope: LabelScope, search: string | undefined, page: Page): Paged<LabelRow> {
  const { fromWhere, params } = labelsInScopeQuery(scope, search);
  return selectPage<LabelRow>(db, '*', fromWhere, 'title, id', [params], page);
}

/**
 * A label of the scope named by its id or its title, GitLab's find_label: digits are tried as an
 * id first, then as a title. 404 `Label` when neither matches.
 */
export function findLabel(db: Db, scope: LabelScope, idOrTitle: string): LabelRow {
  const byId = /^\d{1,15}$/.test(idOrTitle) ? findLabelInScope(db, scope, Number(idOrTitle)) : undefined;
  const label = byId ?? findLabelsByTitles(db, scope, [idOrTitle])[0];
  if (!label) throw notFound('Label');
  return label;
}

export interface LabelInput {
  readonly name: string;
  readonly color: string;
  readonly description?: string;
  readonly priority?: number | null;
}

/** Validation of what a label write sets, in GitLab's error shape (`{title: [...], color: [...]}`). */
function labelColumns(input: { name?: string; color?: string; description?: string }): LabelColumns {
  const errors: FieldErrors = {};
  const columns: LabelColumns = {};
  if (input.name !== undefined) {
    const title = input.name.trim();
    if (!title) errors.title = ["can't be blank"];
    else if (title.length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`];
    else if (title.includes(',')) errors.title = ['is invalid'];
    columns.title = title;
  }
  if (input.color !== undefined) {
    const color = labelColor(input.color);
    if (color === null) errors.color = ['must be a valid color code'];
    else columns.color = color;
  }
  if (input.description !== undefined) columns.description = input.description;
  if (Object.keys(errors).length) throw invalid(errors);
  return columns;
}

/**
 * Creates a label in a project (`projectId`) or group, the scope holding the labels a new one may
 * not share a title with (409 `Label already exists`, ancestor groups' labels included), and sets
 * its priority in the project when given.
 */
export function createLabel(db: Db, owner: { projectId: number } | { groupId: number }, scope: LabelScope, input: LabelInput): LabelRow {
  const columns = labelColumns(input);
  return inTransaction(db, () => {
    if (findLabelsByTitles(db, scope, [columns.title!]).length) throw conflict('Label already exists');
    const now = nowIso();
    const id = insertLabel(db, {
      project_id: 'projectId' in owner ? owner.projectId : null,
      group_id: 'groupId' in owner ? owner.groupId : null,
      title: columns.title!,
      color: columns.color!,
      description: columns.description ?? null,
      created_at: now,
      updated_at: now,
    });
    if ('projectId' in owner && input.priority !== undefined && input.priority !== null) setLabelPriority(db, owner.projectId, id, input.priority);
    return findLabelById(db, id)!;
  });
}

export interface LabelUpdate {
  readonly newName?: string;
  readonly color?: string;
  readonly description?: string;
  /** A number sets the label's priority in `projectId`, null removes it; absent leaves it. */
  readonly priority?: number | null;
}

/** Renames, recolours or redescribes a label, and sets or clears its priority in a project; a taken title is 400 as GitLab validates it. */
export function updateLabel(db: Db, label: LabelRow, projectId: number | null, update: LabelUpdate): LabelRow {
  const columns = labelColumns({ name: update.newName, color: update.color, description: update.description });
  return inTransaction(db, () => {
    if (columns.title !== undefined && columns.title !== label.title) {
      const sameOwner: LabelScope = { projectId: label.project_id, groupIds: label.group_id === null ? [] : [label.group_id] };
      if (findLabelsByTitles(db, sameOwner, [columns.title]).length) throw invalid({ title: ['has already been taken'] });
    }
    if (Object.keys(columns).length) updateLabelRow(db, label.id, { ...columns, updated_at: nowIso() });
    if (projectId !== null && update.priority !== undefined) {
      if (update.priority === null) removeLabelPriority(db, projectId, label.id);
      else setLabelPriority(db, projectId, label.id, update.priority);
    }
    return findLabelById(db, label.id)!;
  });
}

/** Deletes a label with its links, priorities and subscriptions (the polymorphic ones do not cascade). */
export function deleteLabel(db: Db, label: LabelRow): void {
  inTransaction(db, () => removeLabelRows(db, label.id));
}

/** The rows of one label, in the caller's transaction: links and priorities as captured writes, subscriptions, the label. */
export function removeLabelRows(db: Db, labelId: number): void {
  deleteLabelLinksOfLabel(db, labelId);
  deleteLabelPriorities(db, labelId);
  deleteSubscriptionsOf(db, 'Label', [labelId]);
  // Board lists would go with the label by cascade; this also closes the gap each leaves.
  deleteListsOfLabel(db, labelId, nowIso());
  deleteLabelRow(db, labelId);
}

/**
 * The labels an issue of the project gets for these titles: each title's label among the project's
 * and its groups' (the project's own first), and a new project label in the default colour for a
 * title none has, as GitLab's Labels::FindOrCreateService. Runs in the caller's transaction.
 */
export function findOrCreateProjectLabels(db: Db, projectId: number, scope: LabelScope, titles: readonly string[]): LabelRow[] {
  return findOrCreateLabels(db, { projectId }, scope, titles);
}

/** The same for an epic of a group: the group's and its ancestors' labels, and new group labels for the rest. */
export function findOrCreateGroupLabels(db: Db, groupId: number, scope: LabelScope, titles: readonly string[]): LabelRow[] {
  return findOrCreateLabels(db, { groupId }, scope, titles);
}

function findOrCreateLabels(db: Db, owner: { projectId: number } | { groupId: number }, scope: LabelScope, titles: readonly string[]): LabelRow[] {
  const wanted = [...new Set(titles.map((title) => title.trim()).filter(Boolean))];
  const found = findLabelsByTitles(db, scope, wanted);
  const now = nowIso();
  return wanted.map((title) => {
    const existing = found.find((label) => label.title === title);
    if (existing) return existing;
    const columns = labelColumns({ name: title });
    const id = insertLabel(db, {
      project_id: 'projectId' in owner ? owner.projectId : null,
      group_id: 'groupId' in owner ? owner.groupId : null,
      title: columns.title!,
      color: DEFAULT_LABEL_COLOR,
      description: null,
      created_at: now,
      updated_at: now,
    });
    return findLabelById(db, id)!;
  });
}
