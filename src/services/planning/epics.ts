import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { deleteEpicRow, epicsPage, findEpicById, findEpicByIid, insertEpic, updateEpicRow, type EpicColumns, type EpicListFilter, type EpicRow } from '../../db/tables/epics.js';
import { selfAndAncestorGroupIds } from '../../db/tables/groups.js';
import { nextInternalId } from '../../db/tables/internal-ids.js';
import { addLabelLink, labelsOfTargets, removeLabelLink } from '../../db/tables/label-links.js';
import { findLabelsByTitles } from '../../db/tables/labels.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { invalid, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { findOrCreateGroupLabels } from '../issuables/labels.js';
import { deletePolymorphicRows } from '../issuables/polymorphic-rows.js';
import type { Actor } from '../users/authentication.js';

/** GitLab's Epic validates its title as issues do: present, at most 255 characters. */
const TITLE_MAX = 255;

/** What a create or an edit of an epic sets; absent fields stay as they are. */
export interface EpicInput {
  readonly title?: string;
  readonly description?: string;
  /** Dates as `YYYY-MM-DD`; null clears. */
  readonly start_date?: string | null;
  readonly end_date?: string | null;
  readonly labels?: readonly string[];
  readonly state_event?: 'close' | 'reopen';
}

/** The epic `iid` of the group; 404 `Not found` otherwise (the route checked read_epic on the group). */
export function findEpic(db: Db, group: NamespaceRow, iid: number): EpicRow {
  const epic = findEpicByIid(db, group.id, iid);
  if (!epic) throw notFound();
  return epic;
}

/** A page of the group's epics (GitLab's EpicsFinder: newest first by default). */
export function listEpics(db: Db, group: NamespaceRow, filter: Omit<EpicListFilter, 'groupId' | 'labelIds'> & { labels?: readonly string[] }, page: Page): Paged<EpicRow> {
  const { labels, ...rest } = filter;
  let labelIds: number[][] | undefined;
  if (labels?.length) {
    const scope = { projectId: null, groupIds: selfAndAncestorGroupIds(db, group.id) };
    const found = findLabelsByTitles(db, scope, labels);
    labelIds = labels.map((title) => found.filter((label) => label.title === title).map((label) => label.id));
    if (labelIds.some((ids) => !ids.length)) return { rows: [], total: 0 };
  }
  return epicsPage(db, { ...rest, groupId: group.id, labelIds }, page);
}

function checkTitle(title: string | undefined): void {
  if (title === undefined) return;
  if (!title.trim()) throw invalid({ title: ["can't be blank"] });
  if (title.length > TITLE_MAX) throw invalid({ title: [`is too long (maximum is ${TITLE_MAX} characters)`] });
}

/** Makes the epic's labels exactly these titles: found among the group's and its ancestors', created in the group otherwise. */
function setEpicLabels(db: Db, epic: EpicRow, titles: readonly string[], now: string): void {
  const scope = { projectId: null, groupIds: selfAndAncestorGroupIds(db, epic.group_id) };
  const wanted = findOrCreateGroupLabels(db, epic.group_id, scope, titles);
  const current = labelsOfTargets(db, 'Epic', [epic.id]).get(epic.id) ?? [];
  for (const label of current) if (!wanted.some((other) => other.id === label.id)) removeLabelLink(db, 'Epic', epic.id, label.id);
  for (const label of wanted) if (!current.some((other) => other.id === label.id)) addLabelLink(db, 'Epic', epic.id, label.id, now);
}

function stateColumns(epic: EpicRow | null, event: EpicInput['state_event'], now: string): EpicColumns {
  if (event === 'close' && epic?.state !== 'closed') return { state: 'closed', closed_at: now };
  if (event === 'reopen' && epic?.state === 'closed') return { state: 'opened', closed_at: null };
  return {};
}

function dateColumns(input: EpicInput): EpicColumns {
  return {
    ...(input.start_date !== undefined ? { start_date: input.start_date } : {}),
    ...(input.end_date !== undefined ? { end_date: input.end_date } : {}),
  };
}

/** Creates an epic in the group (the route checked admin_epic): its iid from the group's counter, its labels found or created. */
export function createEpic(db: Db, actor: Actor, group: NamespaceRow, input: EpicInput & { title: string }): EpicRow {
  checkTitle(input.title);
  return inTransaction(db, () => {
    const now = nowIso();
    const id = insertEpic(db, {
      group_id: group.id,
      iid: nextInternalId(db, 'epics', group.id),
      title: input.title,
      description: input.description ?? null,
      author_id: actor.user.id,
      ...dateColumns(input),
      created_at: now,
      updated_at: now,
    });
    const epic = findEpicById(db, id)!;
    if (input.labels) setEpicLabels(db, epic, input.labels, now);
    return epic;
  });
}

/** Edits an epic (the route checked admin_epic): title, description, dates, labels, and close or reopen through state_event. */
export function updateEpic(db: Db, epic: EpicRow, input: EpicInput): EpicRow {
  checkTitle(input.title);
  return inTransaction(db, () => {
    const now = nowIso();
    updateEpicRow(db, epic.id, {
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...dateColumns(input),
      ...stateColumns(epic, input.state_event, now),
      updated_at: now,
    });
    if (input.labels) setEpicLabels(db, epic, input.labels, now);
    return findEpicById(db, epic.id)!;
  });
}

/**
 * Deletes epics with the rows that point at them by type and id, which no foreign key removes:
 * label links, notes (with their award emoji and events), award emoji, todos, subscriptions and
 * events. Their epic_issues follow through the foreign key. Runs in the caller's transaction.
 */
export function removeEpicRows(db: Db, epicIds: readonly number[]): void {
  if (!epicIds.length) return;
  deletePolymorphicRows(db, 'Epic', epicIds);
  for (const id of epicIds) deleteEpicRow(db, id);
}

/** Deletes an epic (the route checked destroy_epic); its issues stay, outside any epic. */
export function deleteEpic(db: Db, epic: EpicRow): void {
  inTransaction(db, () => removeEpicRows(db, [epic.id]));
}
