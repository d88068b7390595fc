import type { Db } from './connection.js';
import { isReplicatedTable } from './local-tables.js';
import { syncSystemHookTriggers } from './system-hook-triggers.js';

const TRIGGER_PREFIX = 'geo_capture_';

interface Column {
  name: string;
  pk: number;
  type: string;
}

/** Every replicated table with its columns; each must have an INTEGER `id` primary key, the key events name. */
export function replicatedTables(db: Db): Map<string, string[]> {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  const out = new Map<string, string[]>();
  for (const table of tables.filter(isReplicatedTable)) {
    const columns = db.prepare(`SELECT name, pk, type FROM pragma_table_info(?)`).all(table) as Column[];
    const pk = columns.filter((column) => column.pk > 0);
    if (pk.length !== 1 || pk[0].name !== 'id' || pk[0].type.toUpperCase() !== 'INTEGER') {
      throw new Error(`replicated table ${table} needs an INTEGER PRIMARY KEY named id`);
    }
    out.set(table, columns.map((column) => column.name));
  }
  return out;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const NOW_MS = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

/**
 * Makes the capture triggers match the schema: on the primary every replicated table appends its
 * changed rows to geo_event_log inside the writing transaction, so no code path can forget to
 * replicate and a rolled-back write leaves no event; a secondary has none (its changes come from
 * the log). Recreated at every boot, so a migration that adds a column is captured at once. The
 * primary's system hook triggers (db/system-hook-triggers.ts) follow the same switch.
 */
export function syncCaptureTriggers(db: Db, enabled: boolean): void {
  db.transaction(() => {
    const existing = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE ?").pluck().all(`${TRIGGER_PREFIX}%`) as string[];
    for (const name of existing) db.exec(`DROP TRIGGER ${quote(name)}`);
    syncSystemHookTriggers(db, enabled);
    if (!enabled) return;
    for (const [table, columns] of replicatedTables(db)) {
      const row = `json_object(${columns.map((column) => `'${column}', NEW.${quote(column)}`).join(', ')})`;
      const insert = (op: string, rowRef: string, payload: string) =>
        `INSERT INTO geo_event_log (created_at, kind, table_name, op, row_id, payload) VALUES (${NOW_MS}, 'row', '${table}', '${op}', ${rowRef}.id, ${payload});`;
      db.exec(`
        CREATE TRIGGER ${quote(`${TRIGGER_PREFIX}${table}_insert`)} AFTER INSERT ON ${quote(table)} BEGIN ${insert('upsert', 'NEW', row)} END;
        CREATE TRIGGER ${quote(`${TRIGGER_PREFIX}${table}_update`)} AFTER UPDATE ON ${quote(table)} BEGIN ${insert('upsert', 'NEW', row)} END;
        CREATE TRIGGER ${quote(`${TRIGGER_PREFIX}${table}_delete`)} AFTER DELETE ON ${quote(table)} BEGIN ${insert('delete', 'OLD', 'NULL')} END;
      `);
    }
  }).immediate();
}
