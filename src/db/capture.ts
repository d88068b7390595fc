import type { Db } from './connection.js';
import { isReplicatedTable } from './local-tables.js';
import { SYSTEM_HOOK_TRIGGER_PREFIX, systemHookTriggers } from './system-hook-triggers.js';

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

/** The capture triggers of the replicated tables, by name: each table's insert, update and delete. */
function captureTriggers(db: Db): Map<string, string> {
  const out = new Map<string, string>();
  for (const [table, columns] of replicatedTables(db)) {
    const row = `json_object(${columns.map((column) => `'${column}', NEW.${quote(column)}`).join(', ')})`;
    const insert = (op: string, rowRef: string, payload: string) =>
      `INSERT INTO geo_event_log (created_at, kind, table_name, op, row_id, payload) VALUES (${NOW_MS}, 'row', '${table}', '${op}', ${rowRef}.id, ${payload});`;
    const add = (suffix: string, when: string, op: string, rowRef: string, payload: string) => {
      const name = `${TRIGGER_PREFIX}${table}_${suffix}`;
      out.set(name, `CREATE TRIGGER ${quote(name)} ${when} ON ${quote(table)} BEGIN ${insert(op, rowRef, payload)} END`);
    };
    add('insert', 'AFTER INSERT', 'upsert', 'NEW', row);
    add('update', 'AFTER UPDATE', 'upsert', 'NEW', row);
    add('delete', 'AFTER DELETE', 'delete', 'OLD', 'NULL');
  }
  return out;
}

/** The triggers this module and db/system-hook-triggers.ts own, by name, as sqlite_schema keeps their statements. */
function ownedTriggers(db: Db): Map<string, string> {
  const rows = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND (name GLOB ? OR name GLOB ?)").all(`${TRIGGER_PREFIX}*`, `${SYSTEM_HOOK_TRIGGER_PREFIX}*`) as { name: string; sql: string }[];
  return new Map(rows.map((row) => [row.name, row.sql]));
}

/**
 * Makes the capture triggers match the schema: on the primary every replicated table appends its
 * changed rows to geo_event_log inside the writing transaction, so no code path can forget to
 * replicate and a rolled-back write leaves no event; a secondary has none (its changes come from
 * the log). Checked at every boot, so a migration that adds a column is captured at once. The
 * primary's system hook triggers (db/system-hook-triggers.ts) follow the same switch. Only the
 * triggers that differ are dropped and created: a boot with the schema unchanged writes nothing
 * (no schema change invalidates prepared statements, a secondary's file stays untouched).
 */
export function syncCaptureTriggers(db: Db, enabled: boolean): void {
  const wanted = enabled ? new Map([...captureTriggers(db), ...systemHookTriggers()]) : new Map<string, string>();
  const differs = (existing: Map<string, string>) =>
    existing.size !== wanted.size || [...wanted].some(([name, sql]) => existing.get(name) !== sql);
  if (!differs(ownedTriggers(db))) return;
  db.transaction(() => {
    const existing = ownedTriggers(db);
    for (const [name, sql] of existing) if (wanted.get(name) !== sql) db.exec(`DROP TRIGGER ${quote(name)}`);
    for (const [name, sql] of wanted) if (existing.get(name) !== sql) db.exec(sql);
  }).immediate();
}
