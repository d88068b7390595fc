import type { DeployKeyProjectRow, DeployKeyRow, ProjectDeployKeyRow } from '../db/tables/deploy-keys.js';
import type { EmailRow } from '../db/tables/emails.js';
import type { GpgKeyRow } from '../db/tables/gpg-keys.js';
import type { SshKeyRow } from '../db/tables/ssh-keys.js';
import type { IdentityRow, UserRow } from '../db/tables/users.js';
import { userPublic, type EntityContext } from './users.js';
import { isoTime } from './column-values.js';

/** SSHKey (SPEC: Keys, emails, tokens, hooks). */
export function sshKey(row: SshKeyRow) {
  return { id: row.id, title: row.title, key: row.key, created_at: isoTime(row.created_at) };
}

/** SSHKeyWithUser: GET /keys/:id, the key with its owner in the UserPublic view (GITLAB-NOTES 2.8). */
export function sshKeyWithUser(row: SshKeyRow, user: UserRow, identities: readonly IdentityRow[], ctx: EntityContext) {
  return { ...sshKey(row), user: userPublic(user, identities, ctx) };
}

/**
 * DeployKey: the SSHKey fields and both fingerprints as GitLab names them (`fingerprint` the MD5
 * form, `fingerprint_sha256` the base64 digest without its prefix); deploy keys never expire here.
 */
export function deployKey(row: DeployKeyRow) {
  return {
    id: row.id,
    title: row.title,
    key: row.key,
    created_at: isoTime(row.created_at),
    expires_at: null,
    fingerprint: row.fingerprint_md5,
    fingerprint_sha256: row.fingerprint.replace(/^SHA256:/, ''),
  };
}

/** DeployKeysProject: the key as one project has it, with that project's `can_push`. */
export function projectDeployKey(row: ProjectDeployKeyRow) {
  return { ...deployKey(row), can_push: row.can_push === 1 };
}

/**
 * DeployKeyWithUser: GET /keys?fingerprint= for a deploy key, with who added it (null when that
 * account is gone) and the projects it is enabled in (rows here are never edited, so updated_at is created_at).
 */
export function deployKeyWithUser(row: DeployKeyRow, user: { row: UserRow; identities: readonly IdentityRow[] } | null, links: readonly DeployKeyProjectRow[], ctx: EntityContext) {
  return {
    ...deployKey(row),
    user: user ? userPublic(user.row, user.identities, ctx) : null,
    deploy_keys_projects: links.map((link) => ({
      id: link.id,
      deploy_key_id: link.deploy_key_id,
      project_id: link.project_id,
      created_at: isoTime(link.created_at),
      updated_at: isoTime(link.created_at),
      can_push: link.can_push === 1,
    })),
  };
}

export function gpgKey(row: GpgKeyRow) {
  return { id: row.id, key: row.key, created_at: isoTime(row.created_at) };
}

export function email(row: EmailRow) {
  return { id: row.id, email: row.email };
}
