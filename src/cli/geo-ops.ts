import { ConfigError, type Config } from '../config.js';
import type { Db } from '../db/connection.js';
import { callLocalSite, localSite } from '../geo/local-command.js';
import { FAILURE_KINDS, listCurrentNodeFailures, type GeoSyncFailure } from '../geo/registry/failures.js';
import { registryStates } from '../geo/registry/resync.js';
import type { ItemVerification } from '../geo/sync/verify.js';
import { blobType } from './geo-types.js';
import { colours, progress } from './terminal.js';

/** How the commands reach the site's database (read-only) and its running process. */
export interface OpsContext {
  config: Config;
  read: <T>(fn: (db: Db) => T) => T;
  url?: string;
}

/** `geoforge geo failures [--type T] [--failure-type K]`: this secondary's failed items from its registry, oldest first, every page. */
export function geoFailures(ops: OpsContext, options: { type?: string; failureType?: string; limit?: number; json?: boolean }): void {
  if (ops.config.role !== 'secondary') throw new ConfigError('geo failures: this site is the primary, which replicates nothing; run it on a secondary');
  if (options.failureType !== undefined && !(FAILURE_KINDS as readonly string[]).includes(options.failureType)) {
    throw new ConfigError(`--failure-type: expected one of ${FAILURE_KINDS.join(', ')}`);
  }
  const filters = { type: options.type === undefined ? undefined : blobType(options.type), failure_type: options.failureType as (typeof FAILURE_KINDS)[number] | undefined };
  const node = localSite(ops.config, ops.url).node;
  const limit = options.limit ?? Infinity;
  const rows = ops.read((db) => {
    const all: GeoSyncFailure[] = [];
    for (let page = 1; all.length < limit; page++) {
      const perPage = 100;
      const result = listCurrentNodeFailures(db, node, filters, { page, perPage, offset: (page - 1) * perPage });
      all.push(...result.rows);
      if (result.rows.length < perPage) break;
    }
    return all.slice(0, limit);
  });
  if (options.json) return void console.log(JSON.stringify(rows, null, 2));
  if (!rows.length) return void console.log('no failed items');
  const paint = colours();
  const header = ['type', 'id', 'project', 'failure', 'retries', 'next retry', 'reason'];
  const cells = rows.map((row) => [row.type, String(row.item_id), row.project_id === null ? '-' : String(row.project_id), row.failure_type ?? '-', String(row.retry_count), row.retry_at ?? '-', row.last_sync_failure ?? '-']);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => row[column].length)));
  const line = (row: string[]) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ');
  console.log([paint.bold(line(header)), ...cells.map(line)].join('\n'));
  console.log(`${rows.length} failed item(s)`);
}

/** The site's answer, or an exit 1 with its message. */
async function askSite(ops: OpsContext, path: string, body: object): Promise<Record<string, unknown>> {
  const answer = await callLocalSite(ops.config, 'POST', path, body, ops.url).catch((error: Error) => {
    console.error(`geoforge: ${error.message}`);
    process.exit(1);
  });
  if (answer.status >= 400) {
    console.error(`geoforge: the site answered ${answer.status}: ${String(answer.body.message ?? answer.body.error ?? JSON.stringify(answer.body))}`);
    process.exit(1);
  }
  return answer.body;
}

/**
 * `geoforge geo resync <type> <id>` or `--all-failed [--type T]`: the running secondary marks the
 * items pending (its workers wake); then, unless --no-wait, the CLI follows them in the registry
 * until none is pending or started, with a progress bar on a terminal and log lines otherwise.
 * Exits 1 when some ended failed again, or the wait timed out.
 */
export async function geoResync(ops: OpsContext, options: { type?: string; id?: number; allFailed: boolean; wait: boolean; timeoutSeconds: number; json?: boolean }): Promise<void> {
  let body: object;
  if (options.allFailed) {
    if (options.id !== undefined) throw new ConfigError('geo resync: give either <type> <id> or --all-failed [--type T], not both');
    body = { all_failed: true, ...(options.type ? { type: blobType(options.type) } : {}) };
  } else {
    if (!options.type || options.id === undefined) throw new ConfigError('geo resync: give <type> <id>, or --all-failed');
    body = { type: blobType(options.type), id: options.id };
  }
  const ids = (await askSite(ops, 'resync', body)).ids as number[];
  const summary: Record<string, unknown> = { marked: ids.length };
  if (options.wait && ids.length) {
    const bar = progress('resync');
    const deadline = Date.now() + options.timeoutSeconds * 1000;
    let states = ops.read((db) => registryStates(db, ids));
    for (;;) {
      const open = states.pending + states.started;
      bar.update(ids.length - open, ids.length, `synced ${states.synced}, failed ${states.failed}, pending ${states.pending}, started ${states.started}`);
      if (open === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
      states = ops.read((db) => registryStates(db, ids));
    }
    bar.end();
    Object.assign(summary, states, { timed_out: states.pending + states.started > 0 });
  }
  if (options.json) console.log(JSON.stringify(summary, null, 2));
  else console.log(Object.entries(summary).map(([key, value]) => `${key}: ${String(value)}`).join('\n'));
  if (summary.timed_out === true || Number(summary.failed ?? 0) > 0) process.exitCode = 1;
}

/** `geoforge geo verify <type> <id>`: the running secondary re-checks the item's copy against the primary's checksum; exit 1 unless verified. */
export async function geoVerify(ops: OpsContext, options: { type: string; id: number; json?: boolean }): Promise<void> {
  const result = (await askSite(ops, 'verify', { type: blobType(options.type), id: options.id })) as unknown as ItemVerification;
  if (options.json) console.log(JSON.stringify(result, null, 2));
  else {
    const paint = colours();
    const verdict = result.result === 'verified' ? paint.green('verified') : paint.red(result.result);
    console.log(
      [
        `${result.type} ${result.item_id}: ${verdict}${result.problem ? ` (${result.problem})` : ''}`,
        `  state:            ${result.state}`,
        `  local checksum:   ${result.local_checksum ?? '- (missing)'}`,
        `  primary checksum: ${result.primary_checksum ?? '- (not recorded)'}`,
        `  synced checksum:  ${result.synced_checksum ?? '-'}`,
        ...(result.result === 'failed' ? ['  marked failed (verification): the workers fetch it again'] : []),
      ].join('\n'),
    );
  }
  if (result.result !== 'verified') process.exitCode = 1;
}
