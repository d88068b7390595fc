#!/usr/bin/env node
import cluster from 'node:cluster';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { backupCommands } from './backup-cli.js';
import { geoCoordinatorCommands } from './cli/geo-coordinator.js';
import { geoOpsCommands } from './cli/geo-commands.js';
import { ConfigError, loadConfig } from './config.js';
import { TOKEN_SCOPES } from './entities/tokens.js';
import { createLogger } from './observability/logger.js';

/**
 * The `geoforge` command line. This module holds the command table only: a command loads the code
 * it runs when it runs, so that the supervisor of `geoforge serve` (which forks the workers and
 * relays between them) and a quick command such as `geo status` do not load the whole site.
 */
const commands = () => import('./cli/site-commands.js');

/**
 * `geoforge serve`: a supervisor and its workers (src/cluster/); with `workers: 0`, the whole site
 * in this one process (the embedded/debug mode).
 */
async function serve(argv: { config?: string }): Promise<void> {
  const config = loadConfig({ file: argv.config, env: process.env });
  if (cluster.isWorker) return (await import('./cluster/worker.js')).runWorker(config);
  if (config.workers > 0) return (await import('./cluster/supervisor.js')).runSupervisor(config, createLogger(config.logLevel));
  return (await commands()).serveEmbedded(config);
}

async function main(): Promise<void> {
  await yargs(hideBin(process.argv))
    .scriptName('geoforge')
    .option('config', { type: 'string', describe: 'JSON config file (GEOFORGE_* variables override it)' })
    .command('serve', 'run a site (primary or secondary, from GEOFORGE_ROLE)', (y) => y, serve)
    .command('migrate', 'apply database migrations', (y) => y, async (argv) => (await commands()).runMigrations(argv))
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
          async (argv) => (await commands()).createToken({ ...argv, config: argv.config as string | undefined }),
        )
        .demandCommand(1),
    )
    .command('geo', 'Geo replication, read from the site database', (y) =>
      y
        .command(
          'status',
          "this site's health, role, epoch, lag, sync per type, oldest failure, then every node; exits 1 when unhealthy",
          (c) =>
            c
              .option('json', { type: 'boolean', default: false, describe: 'print the same fields as JSON' })
              .option('url', { type: 'string', describe: 'the running site (default: its external URL)' }),
          async (argv) => (await commands()).geoStatus({ json: argv.json, url: argv.url, config: argv.config as string | undefined }),
        )
        .command(geoOpsCommands())
        .command(geoCoordinatorCommands((argv) => loadConfig({ file: argv.config, env: process.env })))
        .command('nodes', 'list the Geo nodes', (c) => c, async (argv) => (await commands()).geoNodes({ config: argv.config as string | undefined }))
        .command(
          'promote',
          'promote this secondary to primary (planned: waits until it holds everything; --force: now, reporting what it lacks)',
          (c) =>
            c
              .option('force', { type: 'boolean', default: false, describe: 'promote without the primary, with what this site has' })
              .option('timeout', { type: 'number', default: 120, describe: 'seconds a planned promotion may wait' })
              .option('url', { type: 'string', describe: 'the running site (default: its external URL)' })
              .option('json', { type: 'boolean', default: false }),
          async (argv) => (await commands()).geoCommand({ ...argv, config: argv.config as string | undefined }, 'promote', { force: argv.force, timeout_ms: Math.round(argv.timeout * 1000) }),
        )
        .command(
          'demote',
          'turn this old primary into a secondary of the new one (its unreplicated writes are exported to a JSON file)',
          (c) =>
            c
              .option('primary-url', { type: 'string', demandOption: true, describe: 'the new primary' })
              .option('url', { type: 'string', describe: 'the running site (default: its external URL)' })
              .option('offline', { type: 'boolean', default: false, describe: 'act on the data directory of the stopped site instead' })
              .option('json', { type: 'boolean', default: false }),
          async (argv) =>
            argv.offline
              ? (await commands()).geoOffline({ ...argv, config: argv.config as string | undefined }, 'demote', argv['primary-url'])
              : (await commands()).geoCommand({ ...argv, config: argv.config as string | undefined }, 'demote', { primary_url: argv['primary-url'] }),
        )
        .command(
          'follow <primary>',
          're-point this secondary at a new primary (continues from its cursor where the logs allow, else re-bootstraps)',
          (c) =>
            c
              .positional('primary', { type: 'string', demandOption: true, describe: 'the new primary URL' })
              .option('url', { type: 'string', describe: 'the running site (default: its external URL)' })
              .option('offline', { type: 'boolean', default: false, describe: 'act on the data directory of the stopped site instead' })
              .option('json', { type: 'boolean', default: false }),
          async (argv) =>
            argv.offline
              ? (await commands()).geoOffline({ ...argv, config: argv.config as string | undefined }, 'follow', argv.primary)
              : (await commands()).geoCommand({ ...argv, config: argv.config as string | undefined }, 'follow', { primary_url: argv.primary }),
        )
        .demandCommand(1),
    )
    .command('backup', 'back up, verify and restore a site', backupCommands)
    .command('storage', 'where LFS objects, uploads and job artifacts are kept', (y) =>
      y
        .command(
          'migrate <kind>',
          'move a blob kind to its object store or back to the local disk, while the site serves it (resumable)',
          (c) =>
            c
              .positional('kind', { type: 'string', choices: ['lfs', 'uploads', 'artifacts'], demandOption: true })
              .option('to', { type: 'string', choices: ['object', 'local'], demandOption: true, describe: 'where the blobs go' })
              .option('json', { type: 'boolean', describe: 'print the counts as JSON' }),
          async (argv) => {
            const [{ storageMigrate }, { configFrom }] = await Promise.all([import('./cli/storage-migrate.js'), commands()]);
            await storageMigrate(configFrom(argv as { config?: string }), { kind: argv.kind as string, to: argv.to as string, json: argv.json });
          },
        )
        .demandCommand(1),
    )
    .command('ldap', 'LDAP group synchronisation', (y) =>
      y
        .command(
          'sync',
          'sync LDAP group links now (on the primary)',
          (c) => c.option('group', { type: 'number', describe: 'only this group id' }),
          async (argv) => (await commands()).ldapSync({ group: argv.group, config: argv.config as string | undefined }),
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
