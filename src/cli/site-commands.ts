import { existsSync } from 'node:fs';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openDatabase, openDatabaseReadOnly, type Db } from '../db/connection.js';
import { migrate } from '../db/migrate.js';
import { findNamespaceById } from '../db/tables/namespaces.js';
import { findUserByUsername } from '../db/tables/users.js';
import { registerCoordinatorMetrics } from '../cluster/etcd/metrics.js';
import { startCoordinator } from '../cluster/etcd/site-handle.js';
import { AppError } from '../errors.js';
import { Fence } from '../geo/fence.js';
import { runLocalCommand } from '../geo/local-command.js';
import { formatNodeTable } from '../geo/node-reports.js';
import { allGeoNodes } from '../geo/nodes.js';
import { readRoleState, resolveRole } from '../geo/role-state.js';
import { demoteToSecondary, followPrimary } from '../geo/repoint.js';
import { createSite } from '../server.js';
import { syncLdap } from '../services/groups/ldap/sync.js';
import { createPersonalAccessToken } from '../services/users/personal-access-tokens.js';
import { TOKEN_SCOPES } from '../entities/tokens.js';
import { databasePath } from '../storage/layout.js';
import { readRevision, versionString } from '../version.js';
import { buildGeoStatus, formatGeoStatus } from './geo-status.js';
import { progress } from './terminal.js';

/**
 * What the CLI's commands do that needs the site's code (its database, services, Geo): src/cli.ts
 * loads this module only for such a command, so the supervisor of `geoforge serve` never does.
 */

export function configFrom(argv: { config?: string }): Config {
  return loadConfig({ file: argv.config, env: process.env });
}

/** `geoforge serve` with `workers: 0`: the whole site in this one process (the embedded/debug mode). */
export async function serveEmbedded(config: Config): Promise<void> {
  const site = await createSite(config);
  await site.start();
  // The failover loop runs in the one process (issue 28); the fence outlives role switches.
  const coordinator = startCoordinator(config, site.ctx.log, (until, status) => site.ctx.fence.holdLease(until, status), (reason) => failovers?.inc({ reason }));
  const failovers = coordinator ? registerCoordinatorMetrics(site.ctx.metrics.registry, coordinator) : null;
  const shutdown = (signal: string) => {
    site.ctx.log.info({ signal }, 'shutting down');
    void coordinator?.stop();
    site.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

export function runMigrations(argv: { config?: string }): void {
  const config = configFrom(argv);
  const db = openDatabase(databasePath(config.dataDir));
  const applied = migrate(db);
  db.close();
  console.log(applied.length ? `applied migrations ${applied.join(', ')}` : 'database is up to date');
}

export function createToken(argv: { config?: string; user: string; scopes: string; name: string; expires?: string }): void {
  const scopes = argv.scopes.split(',').map((scope) => scope.trim()).filter(Boolean);
  const unknown = scopes.filter((scope) => !(TOKEN_SCOPES as readonly string[]).includes(scope));
  if (!scopes.length || unknown.length) throw new ConfigError(`--scopes: expected some of ${TOKEN_SCOPES.join(', ')}, got "${argv.scopes}"`);
  if (argv.expires !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(argv.expires)) throw new ConfigError(`--expires: expected YYYY-MM-DD, got "${argv.expires}"`);
  const config = configFrom(argv);
  // A secondary's tables are copies of the primary's: a token made here would vanish at the next re-sync.
  if (config.role === 'secondary') throw new ConfigError('token create: run it on the primary site; a secondary replicates its tokens from there');
  const db = openDatabase(databasePath(config.dataDir));
  migrate(db);
  const user = findUserByUsername(db, argv.user);
  if (!user) {
    db.close();
    throw new ConfigError(`--user: no user named "${argv.user}"`);
  }
  const { token } = createPersonalAccessToken(db, user.id, { name: argv.name, scopes, expiresAt: argv.expires ?? null });
  db.close();
  console.log(token);
}

/** Reads the site's database without changing it, beside a running site or not, in one read transaction (one consistent view). */
export function readSiteDatabase<T>(config: Config, read: (db: Db) => T): T {
  const file = databasePath(config.dataDir);
  if (!existsSync(file)) throw new ConfigError(`no database at ${file}: start the site or run "geoforge migrate" first`);
  const db = openDatabaseReadOnly(file);
  try {
    return db.transaction(() => read(db))();
  } finally {
    db.close();
  }
}

/**
 * `geoforge geo status` (issue 19, item 4): this site's answers (health, role, epoch, lag, per-type
 * sync, oldest failure, last report, synchronous replication), every node's line, failover. Live
 * from the running site when the CLI can sign the call, else from the database. Exit 1 when unhealthy.
 */
export async function geoStatus(argv: { config?: string; json?: boolean; url?: string }): Promise<void> {
  // The role the site runs with: its persisted role when it was promoted or demoted.
  const persisted = readRoleState(configFrom(argv).dataDir);
  const config = resolveRole(configFrom(argv), persisted);
  const inputs = { config, persisted, version: versionString(config.edition), revision: await readRevision(), url: argv.url };
  const screen = await buildGeoStatus(inputs, (read) => readSiteDatabase(config, read));
  console.log(argv.json ? JSON.stringify(screen, null, 2) : formatGeoStatus(screen));
  if (!screen.site.healthy) process.exitCode = 1;
}

export function geoNodes(argv: { config?: string }): void {
  console.log(formatNodeTable(readSiteDatabase(configFrom(argv), allGeoNodes)));
}

/**
 * `geo promote`, `geo demote`, `geo follow` (issue 18): sent to the running site, whose role changes
 * in place. Progress and the report are printed; an error exits 1 with its text.
 */
export async function geoCommand(argv: { config?: string; url?: string; json?: boolean }, command: 'promote' | 'demote' | 'follow', body: object): Promise<void> {
  const config = configFrom(argv);
  const started = Date.now();
  const bar = progress(command);
  for await (const line of runLocalCommand(config, command, body, argv.url)) {
    if (line.error) {
      bar.end();
      console.error(`geoforge: ${command} failed: ${String(line.error)}`);
      process.exit(1);
    }
    if (line.progress) {
      const p = line.progress as Record<string, unknown>;
      const cursor = Number(p.cursor_last_event_id ?? 0);
      const total = Math.max(cursor, Number(p.primary_last_event_id ?? cursor));
      bar.update(cursor, total, `${String(p.phase)}: event ${cursor} of ${total}, ${String(p.blobs_unsynced)} blob(s) not synced (${String(p.elapsed_ms)} ms)`);
      continue;
    }
    bar.end();
    const report = (line.result ?? line) as Record<string, unknown>;
    if (argv.json) console.log(JSON.stringify(report, null, 2));
    else printReport(command, report, Date.now() - started);
  }
}

/**
 * `geo demote --offline` and `geo follow --offline`: the same change made on the data directory of
 * a stopped site, which takes the new role when it starts (an old primary demoted before it ever
 * starts again never takes a write as primary). Never beside a running site: it would not know.
 */
export async function geoOffline(argv: { config?: string; json?: boolean }, command: 'demote' | 'follow', url: string): Promise<void> {
  const given = configFrom(argv);
  const persisted = readRoleState(given.dataDir);
  const config = resolveRole(given, persisted);
  const file = databasePath(config.dataDir);
  if (!existsSync(file)) throw new ConfigError(`no database at ${file}: nothing to ${command}`);
  const db = openDatabase(file);
  const started = Date.now();
  try {
    migrate(db);
    // To stderr: stdout carries the report (--json).
    const log = pino({ level: 'warn' }, pino.destination(2));
    const externalUrl = config.externalUrl ?? `http://${config.host}:${config.port}`;
    const site = { config, db, fence: new Fence(config, persisted, log), externalUrl, nodeName: config.nodeName ?? externalUrl, log, switchRole: async () => undefined };
    const report = command === 'demote' ? await demoteToSecondary(site, url) : await followPrimary(site, url);
    if (argv.json) console.log(JSON.stringify(report, null, 2));
    else printReport(command, report as unknown as Record<string, unknown>, Date.now() - started);
  } catch (error) {
    if (error instanceof AppError) {
      console.error(`geoforge: ${command} failed: ${error.message}`);
      process.exit(1);
    }
    throw error;
  } finally {
    db.close();
  }
}

function printReport(command: string, report: Record<string, unknown>, elapsedMs: number): void {
  const rows = Object.entries(report).map(([key, value]) => `  ${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`);
  console.log(`${command} done in ${elapsedMs} ms\n${rows.join('\n')}`);
  if (command === 'promote' && report.forced) {
    console.log(
      `This site lacks ${String(report.missing_events)} event(s) known on the old primary after event ${String(report.last_applied_event_id)} ` +
        `(applied at ${String(report.last_applied_event_at)}) and ${String(report.unsynced_blobs_total)} blob(s); writes the old primary took after ${String(report.primary_last_seen_at)} cannot be known here.`,
    );
  }
}

/** One LDAP group sync now: the group named by --group, else every linked group and every LDAP user, as the hourly job does. */
export async function ldapSync(argv: { config?: string; group?: number }): Promise<void> {
  const config = configFrom(argv);
  if (config.role === 'secondary') throw new ConfigError('ldap sync: run it on the primary site; a secondary replicates memberships from there');
  if (!config.ldap) throw new ConfigError('ldap sync: GEOFORGE_LDAP_URL is not set, so LDAP group sync is not configured');
  const db = openDatabase(databasePath(config.dataDir));
  try {
    migrate(db);
    if (argv.group !== undefined && findNamespaceById(db, argv.group)?.kind !== 'group') throw new ConfigError(`--group: no group with id ${argv.group}`);
    const report = await syncLdap(db, config.ldap, { groupId: argv.group });
    console.log(
      `synced ${report.groups} group(s): ${report.added} added, ${report.updated} updated, ${report.removed} removed; ` +
        `${report.blocked} user(s) blocked, ${report.unblocked} unblocked`,
    );
  } finally {
    db.close();
  }
}
