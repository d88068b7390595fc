import type { IssuableFilters, Presence } from '../../services/issuables/issuable-lists.js';
import { datetime, type Reader } from '../params.js';

/** `None` and `Any`, in any case, as GitLab's finders read them; anything else is the reader's value. */
export function orPresence<T>(reader: Reader<T | undefined>): Reader<T | Presence | undefined> {
  return (raw, name) => {
    if (typeof raw === 'string' && /^(none|any)$/i.test(raw.trim())) return raw.trim().toLowerCase() as Presence;
    return reader(raw, name);
  };
}

/** A list's `scope`, with GitLab's dashed spellings. */
export const SCOPES = ['created_by_me', 'assigned_to_me', 'all', 'created-by-me', 'assigned-to-me'] as const;

/** The creation and update time bounds of an issue or merge request list. */
export const CREATED_UPDATED_PARAMS = { created_after: datetime(), created_before: datetime(), updated_after: datetime(), updated_before: datetime() };

/** The list parameters issues and merge requests read alike, as their readers typed them. */
type IssuableListParams = Partial<
  Record<'milestone' | 'my_reaction_emoji', string | Presence> &
    Record<'search' | 'created_after' | 'created_before' | 'updated_after' | 'updated_before', string> & {
      iids: number[];
      scope: (typeof SCOPES)[number];
      author_id: number;
      assignee_id: number | Presence;
      sort: 'asc' | 'desc';
    }
>;

/** The filters issue and merge request lists share, from their parameters and the label titles the list read; blank values filter nothing. */
export function issuableFiltersOf(params: IssuableListParams, labels: readonly string[] | Presence | undefined, defaultScope: IssuableFilters['scope']): IssuableFilters {
  return {
    labels: Array.isArray(labels) && !labels.length ? undefined : labels,
    milestone: params.milestone || undefined,
    iids: params.iids,
    scope: (params.scope?.replace(/-/g, '_') as IssuableFilters['scope']) ?? defaultScope,
    authorId: params.author_id,
    assigneeId: params.assignee_id,
    myReactionEmoji: params.my_reaction_emoji || undefined,
    search: params.search || undefined,
    createdAfter: params.created_after,
    createdBefore: params.created_before,
    updatedAfter: params.updated_after,
    updatedBefore: params.updated_before,
    sort: params.sort,
  };
}
