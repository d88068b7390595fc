#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/connection.js';
import { migrate } from './db/migrate.js';
import { findUserByUsername } from './db/tables/users.js';
import { createPersonalAccessToken, TOKEN_SCOPES } from './services/personal-access-tokens.js';
import { createSite } from './server.js';

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
  const db = openDatabase(path.join(config.dataDir, 'geoforge.sqlite'));
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
  const db = openDatabase(path.join(config.dataDir, 'geoforge.sqlite'));
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
