import type { NamespaceRow } from '../db/tables/namespaces.js';
import type { EntityContext } from './users.js';

/** Namespace; `members_count_with_descendants` appears for groups when the caller may see it (admins). */
export function namespace(row: NamespaceRow, ctx: EntityContext, membersCountWithDescendants?: number) {
  const view = {
    id: row.id,
    name: row.name,
    path: row.path,
    kind: row.kind,
    full_path: row.full_path,
    parent_id: row.parent_id,
    avatar_url: null,
    web_url: row.kind === 'user' ? `${ctx.externalUrl}/${row.full_path}` : `${ctx.externalUrl}/groups/${row.full_path}`,
  };
  return membersCountWithDescendants === undefined ? view : Object.assign(view, { members_count_with_descendants: membersCountWithDescendants });
}
