/**
 * Tables that belong to one site and are never replicated. Every other table is captured by
 * the primary's triggers (db/capture.ts), so a new table replicates from its first day and
 * nobody can forget to declare it.
 */
export const LOCAL_TABLES: ReadonlySet<string> = new Set([
  'schema_migrations',
  'geo_event_log',
  'geo_cursor',
  // A secondary's sync state of its blobs (repositories, wikis, files).
  'geo_registry',
  // The nonces of site-to-site tokens this site accepted (geo/used-nonces.ts): replays are refused per receiver.
  'geo_used_nonces',
  // Webhook deliveries and their attempts: only the primary delivers (services/hooks/queue.ts),
  // so a secondary must never inherit work to do, and what a receiver answered one site is no fact
  // about another.
  'web_hook_queue',
  'web_hook_logs',
]);

/**
 * The text search indexes (FTS5 tables and their shadow tables, migration 0027) are derived from
 * replicated rows by triggers that fire on every site, the applier's writes included: they are not
 * captured, and unlike LOCAL_TABLES a snapshot keeps them, consistent with the rows it copies.
 */
const SEARCH_INDEX_PREFIX = 'search_';

export const isReplicatedTable = (name: string): boolean => !LOCAL_TABLES.has(name) && !name.startsWith('sqlite_') && !name.startsWith(SEARCH_INDEX_PREFIX);
