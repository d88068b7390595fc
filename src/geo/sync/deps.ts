import type { Db } from '../../db/connection.js';
import type { PrimaryClient } from '../agent/primary-client.js';

/** What one sync needs: where copies live, the live database (it changes on a re-bootstrap), the signed client, and its abort. */
export interface SyncDeps {
  readonly dataDir: string;
  readonly db: () => Db;
  readonly client: PrimaryClient;
  readonly signal: AbortSignal;
}
