import type { Db, Statement } from '../../db/connection.js';

/** How the applier writes one replicated table's rows. */
export interface RowStatements {
  /** Inserts the row, or overwrites every column of the existing one. */
  readonly upsert: Statement;
  /**
   * Overwrites the columns no index covers, only where the row exists with its indexed columns
   * already equal (byte for byte) to the event's; null when the table has nothing to gain or an
   * index this cannot reason about (partial or on an expression).
   */
  readonly updateUnindexed: Statement | null;
  readonly remove: Statement;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The statements for `table`. An update event usually leaves the indexed columns (username,
 * email, state...) as they were, yet an upsert rewrites every index entry of the row: about two
 * thirds of the cost of applying a users row here. Writing only the unindexed columns when the
 * indexed ones are unchanged gives the same row without touching the indexes.
 */
export function rowStatements(db: Db, table: string, columns: readonly string[]): RowStatements {
  const names = columns.map(quote).join(', ');
  const values = columns.map((column) => `@${column}`).join(', ');
  const updates = columns.filter((column) => column !== 'id').map((column) => `${quote(column)} = excluded.${quote(column)}`);
  const onConflict = updates.length ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING';
  return {
    upsert: db.prepare(`INSERT INTO ${quote(table)} (${names}) VALUES (${values}) ON CONFLICT (id) ${onConflict}`),
    updateUnindexed: unindexedUpdate(db, table, columns),
    remove: db.prepare(`DELETE FROM ${quote(table)} WHERE id = ?`),
  };
}

function unindexedUpdate(db: Db, table: string, columns: readonly string[]): Statement | null {
  const keys = db
    .prepare('SELECT il.partial, x.cid, x.name FROM pragma_index_list(?) il, pragma_index_xinfo(il.name) x WHERE x.key = 1')
    .all(table) as { partial: number; cid: number; name: string | null }[];
  if (keys.some((key) => key.partial || key.cid === -2)) return null;
  // The id (-1: the rowid itself) is the row's key, the same by definition.
  const indexed = new Set(keys.filter((key) => key.cid !== -1 && key.name !== 'id').map((key) => key.name!));
  const unindexed = columns.filter((column) => column !== 'id' && !indexed.has(column));
  if (!indexed.size || !unindexed.length) return null;
  const set = unindexed.map((column) => `${quote(column)} = @${column}`).join(', ');
  // BINARY: a NOCASE column would otherwise call 'Alice' and 'alice' unchanged.
  const same = [...indexed].map((column) => `${quote(column)} IS @${column} COLLATE BINARY`).join(' AND ');
  return db.prepare(`UPDATE ${quote(table)} SET ${set} WHERE id = @id AND ${same}`);
}
