import { writeFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/connection.js';
import { findUserByUsername, hasAnyUser } from '../../db/tables/users.js';
import { initialRootPasswordPath } from '../../storage/layout.js';
import { ensurePersonalAccessToken } from './personal-access-tokens.js';
import { newSecret } from './secrets.js';
import { createUser } from './users.js';

export const ROOT_USERNAME = 'root';

/**
 * First boot creates the admin `root`. Its password comes from GEOFORGE_ROOT_PASSWORD, or is
 * generated and written to DATA_DIR/initial_root_password (mode 0600), never to the log.
 * GEOFORGE_ROOT_TOKEN, when set, is ensured as a root token with api, read_user and sudo.
 */
export async function ensureRoot(db: Db, config: Config, log: Logger): Promise<void> {
  let root = findUserByUsername(db, ROOT_USERNAME);
  if (!root && !hasAnyUser(db)) {
    const password = config.rootPassword ?? newSecret('');
    root = await createUser(db, { username: ROOT_USERNAME, email: 'admin@example.com', name: 'Administrator', password, admin: true, skip_confirmation: true });
    if (!config.rootPassword) {
      const file = initialRootPasswordPath(config.dataDir);
      await writeFile(file, `${password}\n`, { mode: 0o600 });
      log.info({ file }, 'created admin user root; its password is in this file');
    }
  }
  if (config.rootToken) {
    if (!root) throw new Error('GEOFORGE_ROOT_TOKEN is set but there is no user root');
    ensurePersonalAccessToken(db, root.id, config.rootToken, ['api', 'read_user', 'sudo']);
  }
}
