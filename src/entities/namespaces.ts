import type { NamespaceRow } from '../db/tables/namespaces.js';
import type { EntityContext } from './users.js';

export function namespace(row: NamespaceRow, ctx: EntityContext) {
  return {
    id: row.id,
    name: row.name,
    path: row.path,
    kind: row.kind,
    full_path: row.full_path,
    parent_id: row.parent_id,
    avatar_url: null,
    web_url: row.kind === 'user' ? `${ctx.externalUrl}/${row.full_path}` : `${ctx.externalUrl}/groups/${row.full_path}`,
  };
}
