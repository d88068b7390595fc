import type { Db } from '../../db/connection.js';
import type { BlobStores } from '../../storage/blob-stores.js';
import type { PrimaryClient } from '../agent/primary-client.js';

/** What one sync needs: where copies live, the live database (it changes on a re-bootstrap), the signed client, and its abort. */
export interface SyncDeps {
  readonly dataDir: string;
  /** Where file copies go: this site's own stores (its disk or its own bucket). */
  readonly blobs: BlobStores;
  readonly db: () => Db;
  readonly client: PrimaryClient;
  readonly signal: AbortSignal;
}
