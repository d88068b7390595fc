import type { Argv, CommandModule } from 'yargs';
import { FAILURE_KINDS } from '../geo/registry/failures.js';
import type { OpsContext } from './geo-ops.js';
import { TYPE_CHOICES } from './geo-types.js';

type Global = { config?: string };

/**
 * The operator's registry commands under `geoforge geo` (issue 19, item 4): `failures`, `resync`,
 * `verify`. Failures are read from the site's database; resync and verify are made by the running
 * site (signed /api/v4/geo/local/* calls, as `geo promote`).
 */
export function geoOpsCommands(): CommandModule<Global, any>[] {
  /** The commands' code and the site's, loaded for the command that runs (src/cli.ts). */
  const run = async (argv: Record<string, unknown>, command: (commands: typeof import('./geo-ops.js'), ops: OpsContext) => unknown) => {
    const [commands, { configFrom, readSiteDatabase }] = await Promise.all([import('./geo-ops.js'), import('./site-commands.js')]);
    const config = configFrom({ config: argv.config as string | undefined });
    await command(commands, { config, url: argv.url as string | undefined, read: (fn) => readSiteDatabase(config, fn) });
  };
  const url = (c: Argv<Global>) => c.option('url', { type: 'string', describe: 'the running site (default: its external URL)' }).option('json', { type: 'boolean', default: false });
  return [
    {
      command: 'failures',
      describe: "this secondary's failed items, oldest first, with their reasons",
      builder: (c) =>
        url(c)
          .option('type', { type: 'string', describe: `only this type (${TYPE_CHOICES.join(', ')})` })
          .option('failure-type', { type: 'string', choices: FAILURE_KINDS, describe: 'only this kind of failure' })
          .option('limit', { type: 'number', describe: 'at most this many' }),
      handler: (argv) => run(argv, ({ geoFailures }, ops) => geoFailures(ops, { type: argv.type, failureType: argv['failure-type'], limit: argv.limit, json: argv.json })),
    },
    {
      command: 'resync [type] [id]',
      describe: 'mark an item (or --all-failed) for resync on this secondary and follow it until synced or failed again',
      builder: (c) =>
        url(c)
          .positional('type', { type: 'string', describe: `${TYPE_CHOICES.join(', ')}` })
          .positional('id', { type: 'number', describe: "the item's id (a project id for a repository or wiki)" })
          .option('all-failed', { type: 'boolean', default: false, describe: 'every failed item (of --type, when given)' })
          .option('wait', { type: 'boolean', default: true, describe: 'follow the items until none is pending (--no-wait: return once marked)' })
          .option('timeout', { type: 'number', default: 600, describe: 'seconds to follow them' }),
      handler: (argv) =>
        run(argv, ({ geoResync }, ops) =>
          geoResync(ops, { type: argv.type, id: argv.id, allFailed: argv['all-failed'], wait: argv.wait, timeoutSeconds: argv.timeout, json: argv.json }),
        ),
    },
    {
      command: 'verify <type> <id>',
      describe: "re-check one item's copy against the primary's checksum now (exit 1 unless it matches)",
      builder: (c) => url(c).positional('type', { type: 'string', demandOption: true }).positional('id', { type: 'number', demandOption: true }),
      handler: (argv) => run(argv, ({ geoVerify }, ops) => geoVerify(ops, { type: argv.type, id: argv.id, json: argv.json })),
    },
  ];
}
