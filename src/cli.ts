#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { existsSync } from 'node:fs';
import { backupCommands } from './backup-cli.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase, openDatabaseReadOnly, type Db } from './db/connection.js';
import { migrate } from './db/migrate.js';
import { findNamespaceById } from './db/tables/namespaces.js';
import { findUserByUsername } from './db/tables/users.js';
import { formatNodeStatusJson, formatNodeStatusTable, formatNodeTable } from './geo/node-reports.js';
import { readNodeStatuses } from './geo/node-statuses.js';
import { allGeoNodes } from './geo/nodes.js';
import { syncLdap } from './services/groups/ldap/sync.js';
import { createPersonalAccessToken, TOKEN_SCOPES } from './services/users/personal-access-tokens.js';
import { createSite } from './server.js';
import { databasePath } from './storage/layout.js';
import { readRevision, versionString } from './version.js';

function configFrom(argv: { config?: string }): Config {
  return loadConfig({ file: argv.config, env: process.env });
}

async function serve(argv: { config?: string }): Promise<void> {
  const site = await createSite(configFrom(argv));
  await site.start();
  const shutdown = (signal: string) => {
    site.ctx.log.info({ signal }, 'shutting down');
    site.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

function runMigrations(argv: { config?: string }): void {
  const config = configFrom(argv);
  const db = openDatabase(databasePath(config.dataDir));
  const applied = migrate(db);
  db.close();
  console.log(applied.length ? `applied migrations ${applied.join(', ')}` : 'database is up to date');
}

function createToken(argv: { config?: string; user: string; scopes: string; name: string; expires?: string }): void {
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
function readSiteDatabase<T>(config: Config, read: (db: Db) => T): T {
  const file = databasePath(config.dataDir);
  if (!existsSync(file)) throw new ConfigError(`no database at ${file}: start the site or run "geoforge migrate" first`);
  const db = openDatabaseReadOnly(file);
  try {
    return db.transaction(() => read(db))();
  } finally {
    db.close();
  }
}

/** The status of every node: the primary's from its event log, secondaries' from their stored reports. */
async function geoStatus(argv: { config?: string; json?: boolean }): Promise<void> {
  const config = configFrom(argv);
  const revision = await readRevision();
  const lines = readSiteDatabase(config, (db) =>
    readNodeStatuses(db, {
      isPrimarySite: config.role === 'primary',
      staleSeconds: config.geo.statusStaleSeconds,
      version: versionString(config.edition),
      revision,
      now: Date.now(),
    }),
  );
  console.log(argv.json ? formatNodeStatusJson(lines) : formatNodeStatusTable(lines));
}

function geoNodes(argv: { config?: string }): void {
  console.log(formatNodeTable(readSiteDatabase(configFrom(argv), allGeoNodes)));
}

/** One LDAP group sync now: the group named by --group, else every linked group and every LDAP user, as the hourly job does. */
async function ldapSync(argv: { config?: string; group?: number }): Promise<void> {
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

async function main(): Promise<void> {
  await yargs(hideBin(process.argv))
    .scriptName('geoforge')
    .option('config', { type: 'string', describe: 'JSON config file (GEOFORGE_* variables override it)' })
    .command('serve', 'run a site (primary or secondary, from GEOFORGE_ROLE)', (y) => y, serve)
    .command('migrate', 'apply database migrations', (y) => y, runMigrations)
    .command('token', 'personal access tokens', (y) =>
      y
        .command(
          'create',
          'print a new personal access token',
          (c) =>
            c
              .option('user', { type: 'string', demandOption: true, describe: 'username' })
              .option('scopes', { type: 'string', default: 'api', describe: `comma-separated: ${TOKEN_SCOPES.join(', ')}` })
              .option('name', { type: 'string', default: 'cli' })
              .option('expires', { type: 'string', describe: 'expiry date YYYY-MM-DD' }),
          (argv) => createToken({ ...argv, config: argv.config as string | undefined }),
        )
        .demandCommand(1),
    )
    .command('geo', 'Geo replication, read from the site database', (y) =>
      y
        .command(
          'status',
          'print the status of every Geo node',
          (c) => c.option('json', { type: 'boolean', default: false, describe: 'print JSON instead of a table' }),
          (argv) => geoStatus({ json: argv.json, config: argv.config as string | undefined }),
        )
        .command('nodes', 'list the Geo nodes', (c) => c, (argv) => geoNodes({ config: argv.config as string | undefined }))
        .demandCommand(1),
    )
    .command('backup', 'back up, verify and restore a site', backupCommands)
    .command('ldap', 'LDAP group synchronisation', (y) =>
      y
        .command(
          'sync',
          'sync LDAP group links now (on the primary)',
          (c) => c.option('group', { type: 'number', describe: 'only this group id' }),
          (argv) => ldapSync({ group: argv.group, config: argv.config as string | undefined }),
        )
        .demandCommand(1),
    )
    .demandCommand(1)
    .strict()
    .help()
    .fail((message, error, y) => {
      if (error) throw error;
      console.error(`${message}\n`);
      y.showHelp();
      process.exit(2);
    })
    .parseAsync();
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? `geoforge: ${error.message}` : error);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
