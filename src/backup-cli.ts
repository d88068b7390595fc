import path from 'node:path';
import type { Argv } from 'yargs';
import { ConfigError, loadConfig } from './config.js';
import { versionString } from './version.js';

/**
 * `geoforge backup create|verify|restore`. create runs beside the site, in its own process: it reads
 * the site's SQLite file through a read-only connection and SQLite's online backup API (the site's
 * WAL lets it keep writing), so it needs no API endpoint and no token, only read access to the data
 * directory (run it as the service user). Each command loads its code when it runs (src/cli.ts).
 */
export function backupCommands(y: Argv): Argv {
  return y
    .command(
      'create',
      'back up a site, running or not, without stopping writes',
      (c) => c.option('output', { type: 'string', describe: 'a new directory for the backup (default: ./geoforge-backup-<time>)' }),
      async (argv) => {
        const config = loadConfig({ file: argv.config as string | undefined, env: process.env });
        const output = path.resolve((argv.output as string | undefined) ?? `geoforge-backup-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`);
        const { createBackup } = await import('./services/backup/create.js');
        const manifest = await createBackup(config, output, { version: versionString(config.edition), progress: (line) => console.error(`backup: ${line}`) });
        console.log(`${output} (event ${manifest.database.last_event_id}, ${manifest.entries.length} files)`);
      },
    )
    .command(
      'verify <dir>',
      "check every file of a backup against its manifest's sizes and sha256; exit 1 on any difference",
      (c) => c.positional('dir', { type: 'string', demandOption: true }),
      async (argv) => {
        // The site's object stores, when configured, to check the blobs the backup recorded there.
        const config = loadConfig({ file: argv.config as string | undefined, env: process.env });
        const [{ BlobStores }, { verifyBackup }] = await Promise.all([import('./storage/blob-stores.js'), import('./services/backup/verify.js')]);
        const stores = await BlobStores.open(config.dataDir, config.objectStores, { failed: () => undefined, answered: () => undefined });
        const report = await verifyBackup(path.resolve(argv.dir as string), stores)
          .catch((error: Error) => {
            throw new ConfigError(`backup verify: ${error.message}`);
          })
          .finally(() => stores.close());
        for (const problem of report.problems) console.log(`DAMAGED ${problem}`);
        console.log(`${report.problems.length ? 'damaged' : 'ok'}: ${report.files} files, ${report.bytes} bytes checked, event ${report.manifest.database.last_event_id}`);
        if (report.problems.length) process.exitCode = 1;
      },
    )
    .command(
      'restore <dir>',
      'restore a verified backup into a new data directory',
      (c) =>
        c
          .positional('dir', { type: 'string', demandOption: true })
          .option('data-dir', { type: 'string', demandOption: true, describe: 'the new data directory (missing or empty)' }),
      async (argv) => {
        const target = path.resolve(argv['data-dir'] as string);
        const { restoreBackup } = await import('./services/backup/restore.js');
        const manifest = await restoreBackup(path.resolve(argv.dir as string), target, (line) => console.error(`restore: ${line}`)).catch((error: Error) => {
          throw new ConfigError(`backup restore: ${error.message}`);
        });
        console.log(`restored ${target} at event ${manifest.database.last_event_id}: start a site with dataDir ${target}`);
      },
    )
    .demandCommand(1);
}
