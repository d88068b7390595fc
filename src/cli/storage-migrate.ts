import { ConfigError, type Config } from '../config.js';
import { BLOB_KINDS, type BlobKind } from '../storage/blob-store.js';
import { migrateBlobs } from '../storage/blob-migration.js';
import { BlobStores } from '../storage/blob-stores.js';
import { progress } from './terminal.js';

/** What the command is told; yargs has checked the choices. */
export interface StorageMigrateArgs {
  readonly kind: string;
  readonly to: string;
  readonly json?: boolean;
}

/**
 * `geoforge storage migrate <kind> --to object|local`: moves a kind's blobs to its object store or
 * back to the disk while the site keeps serving them, with a progress bar and the counts at the
 * end. Run again to finish a run that stopped; exits 1 when some blob could not be moved.
 */
export async function storageMigrate(config: Config, argv: StorageMigrateArgs): Promise<void> {
  if (!(BLOB_KINDS as readonly string[]).includes(argv.kind)) throw new ConfigError(`unknown blob kind "${argv.kind}": expected one of ${BLOB_KINDS.join(', ')}`);
  const kind = argv.kind as BlobKind;
  if (argv.to !== 'object' && argv.to !== 'local') throw new ConfigError(`--to: expected object or local, got "${argv.to}"`);
  if (!config.objectStores[kind]) throw new ConfigError(`storage migrate: objectStores.${kind} is not configured; both directions need the store`);
  const blobs = await BlobStores.open(config.dataDir, config.objectStores, { failed: () => undefined, answered: () => undefined });
  const bar = progress(`${kind} -> ${argv.to}`);
  const failures: string[] = [];
  try {
    await blobs.check().catch((error: unknown) => {
      throw new ConfigError(`objectStores: ${(error as Error).message}`);
    });
    const started = Date.now();
    const counts = await migrateBlobs(blobs, kind, argv.to, (figures, key, error) => {
      if (error) failures.push(`${key}: ${(error as Error).message}`);
      bar.update(figures.moved + figures.failed, figures.total, `${figures.moved} moved, ${figures.failed} failed`);
    });
    bar.end();
    const report = { kind, to: argv.to, ...counts, seconds: (Date.now() - started) / 1000, failures };
    if (argv.json) console.log(JSON.stringify(report, null, 2));
    else {
      console.log(`${kind} -> ${argv.to}: ${counts.moved} of ${counts.total} moved (${counts.bytes} bytes), ${counts.failed} failed, in ${report.seconds} s`);
      for (const failure of failures) console.log(`  failed: ${failure}`);
    }
    if (counts.failed > 0) process.exitCode = 1;
  } finally {
    bar.end();
    blobs.close();
  }
}
