import type { EpicRow } from '../db/tables/epics.js';
import type { LabelRow } from '../db/tables/labels.js';
import type { UserRow } from '../db/tables/users.js';
import { isoTime } from './column-values.js';
import { userBasic, type EntityContext } from './users.js';

/** What the epic view needs beyond the row, loaded for a whole page by services/planning/epic-relations.ts. */
export interface EpicRelations {
  readonly users: ReadonlyMap<number, UserRow>;
  readonly labels: ReadonlyMap<number, readonly LabelRow[]>;
  /** Full paths of the epics' groups, by id. */
  readonly groupPaths: ReadonlyMap<number, string>;
  readonly votes: ReadonlyMap<number, { readonly upvotes: number; readonly downvotes: number }>;
}

/** Epic (ENT-EE Epic, GITLAB-NOTES 2.5): the SPEC's fields, with the later labels, state, web_url, times and votes. */
export function epicView(row: EpicRow, rel: EpicRelations, ctx: EntityContext) {
  const author = rel.users.get(row.author_id);
  const votes = rel.votes.get(row.id);
  return {
    id: row.id,
    iid: row.iid,
    group_id: row.group_id,
    title: row.title,
    description: row.description,
    state: row.state,
    author: author ? userBasic(author, ctx) : null,
    start_date: row.start_date,
    end_date: row.end_date,
    web_url: `${ctx.externalUrl}/groups/${rel.groupPaths.get(row.group_id) ?? ''}/-/epics/${row.iid}`,
    labels: (rel.labels.get(row.id) ?? []).map((label) => label.title),
    upvotes: votes?.upvotes ?? 0,
    downvotes: votes?.downvotes ?? 0,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    closed_at: isoTime(row.closed_at),
  };
}
