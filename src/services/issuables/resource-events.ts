import type { Db } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { labelsByIds } from '../../db/tables/labels.js';
import { milestonesByIds } from '../../db/tables/milestones.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { findIssueLabelEvent, issueLabelEventsPage, type ResourceLabelEventRow } from '../../db/tables/resource-label-events.js';
import { findIssueMilestoneEvent, issueMilestoneEventsPage, type ResourceMilestoneEventRow } from '../../db/tables/resource-milestone-events.js';
import { findIssueStateEvent, issueStateEventsPage, type ResourceStateEventRow } from '../../db/tables/resource-state-events.js';
import { findIssueWeightEvent, issueWeightEventsPage, type ResourceWeightEventRow } from '../../db/tables/resource-weight-events.js';
import type { ResourceEventRelations } from '../../entities/resource-events.js';
import {
  findMergeRequestLabelEvent,
  findMergeRequestMilestoneEvent,
  findMergeRequestStateEvent,
  mergeRequestLabelEventsPage,
  mergeRequestMilestoneEventsPage,
  mergeRequestStateEventsPage,
} from '../../db/tables/merge-request-resource-events.js';
import { notFound } from '../../errors.js';
import { milestoneOwnerPaths } from './milestones.js';
import type { Noteable } from './noteables.js';

/**
 * The resource events of a noteable (GitLab's ResourceLabelEvents, ResourceMilestoneEvents and
 * ResourceStateEvents APIs), oldest first, paged in SQL on their per-issue and per-merge-request
 * indexes.
 */
export interface ResourceEventKind<Row> {
  page(db: Db, noteable: Noteable, page: Page): Paged<Row>;
  /** One event of the noteable; 404 `Not found` otherwise. */
  one(db: Db, noteable: Noteable, id: number): Row;
}

type PageOf<Row> = (db: Db, noteableId: number, page: Page) => Paged<Row>;
type FindOf<Row> = (db: Db, noteableId: number, id: number) => Row | undefined;

/** One kind of event: the issue queries and the merge request queries, picked by the noteable's type. */
function kind<Row>(issues: [PageOf<Row>, FindOf<Row>], mergeRequests: [PageOf<Row>, FindOf<Row>]): ResourceEventKind<Row> {
  const queries = (noteable: Noteable) => (noteable.type === 'MergeRequest' ? mergeRequests : issues);
  return {
    page: (db, noteable, page) => queries(noteable)[0](db, noteable.id, page),
    one: (db, noteable, id) => {
      const row = queries(noteable)[1](db, noteable.id, id);
      if (!row) throw notFound();
      return row;
    },
  };
}

export const labelEvents: ResourceEventKind<ResourceLabelEventRow> = kind([issueLabelEventsPage, findIssueLabelEvent], [mergeRequestLabelEventsPage, findMergeRequestLabelEvent]);
export const milestoneEvents: ResourceEventKind<ResourceMilestoneEventRow> = kind(
  [issueMilestoneEventsPage, findIssueMilestoneEvent],
  [mergeRequestMilestoneEventsPage, findMergeRequestMilestoneEvent],
);
export const stateEvents: ResourceEventKind<ResourceStateEventRow> = kind([issueStateEventsPage, findIssueStateEvent], [mergeRequestStateEventsPage, findMergeRequestStateEvent]);

/** Weight events exist for issues only (GitLab's ResourceWeightEvents API); the routes name an issue. */
export const weightEvents: ResourceEventKind<ResourceWeightEventRow> = {
  page: (db, noteable, page) => issueWeightEventsPage(db, noteable.id, page),
  one: (db, noteable, id) => {
    const row = findIssueWeightEvent(db, noteable.id, id);
    if (!row) throw notFound();
    return row;
  },
};

/** What the views of a page of events need: users, labels, milestones and their owners' paths, one query per kind. */
export function loadResourceEventRelations(
  db: Db,
  noteable: Noteable,
  rows: readonly { user_id: number | null; label_id?: number | null; milestone_id?: number | null }[],
): ResourceEventRelations {
  const ids = (pick: (row: (typeof rows)[number]) => number | null | undefined) => rows.flatMap((row) => (pick(row) == null ? [] : [pick(row) as number]));
  const milestones = milestonesByIds(db, [...new Set(ids((row) => row.milestone_id))]);
  return {
    resource: { type: noteable.type, id: noteable.id },
    users: usersByIds(db, ids((row) => row.user_id)),
    labels: labelsByIds(db, ids((row) => row.label_id)),
    milestones,
    milestonePath: milestoneOwnerPaths(db, [...milestones.values()]),
  };
}
