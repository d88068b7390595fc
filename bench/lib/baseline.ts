import type { Scope } from './scope.js';
import { freePort, startServer, type RunningServer } from './server.js';

export interface BaselineSpec {
  readonly name: string;
  /** A script in bench/baselines/, relative to the repository root. */
  readonly script: string;
  readonly dbFile: string;
  readonly readyPath: string;
  readonly logFile: string;
}

/** A baseline server run as `node <script> <sqlite-file> <port>`, on the server core like geoforge. */
export async function startBaseline(scope: Scope, spec: BaselineSpec): Promise<RunningServer> {
  const port = await freePort();
  return startServer(scope, {
    name: spec.name,
    nodeArgs: ['--import', 'tsx', spec.script, spec.dbFile, String(port)],
    port,
    readyPath: spec.readyPath,
    logFile: spec.logFile,
  });
}
