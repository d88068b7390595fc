import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { createSite, type Site } from '../../src/server.js';
import type { Scope } from './scope.js';
import { freePort, startServer, type RunningServer } from './server.js';

/** GEOFORGE_ROOT_TOKEN of every benched site: a root PAT with api, read_user and sudo. */
export const ROOT_TOKEN = 'glpat-bench-root-token-0123456789';

/**
 * The real site built in this process on `dataDir` (migrations, root and its token, exactly as
 * at boot) but not listening: scenarios seed through its db and services, then close it.
 */
export function openSeedSite(dataDir: string): Promise<Site> {
  const config = loadConfig({ env: { GEOFORGE_DATA_DIR: dataDir, GEOFORGE_ROOT_TOKEN: ROOT_TOKEN, GEOFORGE_RATE_LIMIT_EXEMPT_LOOPBACK: 'true' } });
  return createSite(config, { log: createLogger('silent') });
}

/**
 * The node flags `npm start` (package.json) runs a site with: the bench measures the site as it
 * is started, not a bare `node`.
 */
export const SERVER_NODE_FLAGS: readonly string[] = (() => {
  const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ');
  return start.slice(1, start.indexOf('dist/cli.js'));
})();

/**
 * The request workers of every benched site (GEOFORGE_WORKERS): a site is pinned to the one server
 * core, so one request worker beside the background worker uses what it is given. BENCH_WORKERS
 * overrides it (`BENCH_WORKERS=2 npm run bench users-read`, informational on 2 cores).
 */
export const SITE_WORKERS_ENV: Readonly<Record<string, string>> = { GEOFORGE_WORKERS: process.env.BENCH_WORKERS || '1' };

/**
 * `node dist/cli.js serve` on `dataDir`, as a separate process on the server core (`nodeFlags`
 * added to npm start's, e.g. geo.ts's profileFlags()). The request
 * log stays at info, since it is part of every request's cost, and goes to `logFile`.
 */
export async function startGeoforge(scope: Scope, dataDir: string, logFile: string, nodeFlags: readonly string[] = [], env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  return startServer(scope, {
    name: 'geoforge',
    nodeArgs: [...SERVER_NODE_FLAGS, ...nodeFlags, 'dist/cli.js', 'serve'],
    env: {
      GEOFORGE_HOST: '127.0.0.1',
      GEOFORGE_PORT: String(port),
      GEOFORGE_DATA_DIR: dataDir,
      GEOFORGE_ROOT_TOKEN: ROOT_TOKEN,
      GEOFORGE_LOG_LEVEL: 'info',
      // The bench client is on loopback: it measures the site, not its rate limits.
      GEOFORGE_RATE_LIMIT_EXEMPT_LOOPBACK: 'true',
      ...SITE_WORKERS_ENV,
      ...env,
    },
    port,
    readyPath: '/-/readiness',
    logFile,
  });
}
