import type { Migration } from '../migrate.js';

/**
 * Deploy keys (issue 17, item 5), as GitLab keeps them: an SSH public key not tied to a user's
 * account (`user_id` names who added it), enabled in projects through deploy_keys_projects with
 * `can_push` per project; a key used by several projects is one row. `public` keys (GitLab's
 * instance-wide ones) may be enabled anywhere. Keys are looked up by fingerprint in both forms
 * GitLab answers to: OpenSSH's `SHA256:<base64>` (`fingerprint`) and the colon-separated MD5
 * (`fingerprint_md5`), which ssh_keys gains too (rows made before this migration get it at the
 * primary's next boot, services/users/ssh-keys.ts fillMd5Fingerprints). Both tables replicate.
 */
export const deployKeys: Migration = {
  version: 15,
  name: 'deploy_keys',
  sql: `
ALTER TABLE ssh_keys ADD COLUMN fingerprint_md5 TEXT;
CREATE INDEX ssh_keys_fingerprint_md5 ON ssh_keys (fingerprint_md5);

CREATE TABLE deploy_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  fingerprint_md5 TEXT NOT NULL,
  public INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX deploy_keys_fingerprint ON deploy_keys (fingerprint);
CREATE INDEX deploy_keys_user ON deploy_keys (user_id);
-- GET /deploy_keys?public=true
CREATE INDEX deploy_keys_public ON deploy_keys (public, id);

CREATE TABLE deploy_keys_projects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  deploy_key_id INTEGER NOT NULL REFERENCES deploy_keys (id) ON DELETE CASCADE,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  can_push INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX deploy_keys_projects_project_key ON deploy_keys_projects (project_id, deploy_key_id);
CREATE INDEX deploy_keys_projects_key ON deploy_keys_projects (deploy_key_id, project_id);
`,
};
