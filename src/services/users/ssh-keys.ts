import sshpk from 'sshpk';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { deleteSshKeyRow, findSshKey, findSshKeyByFingerprint, insertSshKey, listSshKeysOf, type SshKeyRow } from '../../db/tables/ssh-keys.js';
import { identitiesOf, type IdentityRow, type UserRow } from '../../db/tables/users.js';
import { invalid, notFound, type FieldErrors } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { getUser } from './users.js';

interface ParsedSshKey {
  /** `<type> <base64>[ <comment>]`, the form GitLab stores and returns. */
  readonly text: string;
  /** OpenSSH's `SHA256:<base64>` form, which python-gitlab's tests look keys up by. */
  readonly fingerprint: string;
}

/** Parses one OpenSSH public key line; null when it is not one. */
function parseSshKey(input: string): ParsedSshKey | null {
  // GitLab drops the line breaks a paste leaves inside the base64 before parsing.
  const line = input.replace(/[\r\n]/g, '').trim();
  let key: sshpk.Key;
  try {
    key = sshpk.parseKey(line, 'ssh');
  } catch {
    // Whatever sshpk rejects is a malformed key, reported to the caller as a field error.
    return null;
  }
  // sshpk names a comment-less key "(unnamed)", so the comment is taken from the input itself.
  const [type, blob] = key.toString('ssh').split(' ');
  const comment = line.split(/\s+/).slice(2).join(' ');
  return { text: [type, blob, comment].filter(Boolean).join(' '), fingerprint: key.fingerprint('sha256').toString() };
}

export function listSshKeys(db: Db, userId: number, page: Page): Paged<SshKeyRow> {
  getUser(db, userId);
  return listSshKeysOf(db, userId, page);
}

/** The user's key, or 404 `Key` (also for another user's key). */
export function getSshKey(db: Db, userId: number, keyId: number): SshKeyRow {
  getUser(db, userId);
  const row = findSshKey(db, keyId);
  if (!row || row.user_id !== userId) throw notFound('Key');
  return row;
}

/** Any user's key with its owner, by id or fingerprint, for the admin lookups GET /keys/:id and GET /keys?fingerprint=. */
export function getSshKeyWithOwner(db: Db, ref: { id: number } | { fingerprint: string }): { key: SshKeyRow; user: UserRow; identities: IdentityRow[] } {
  const key = 'id' in ref ? findSshKey(db, ref.id) : findSshKeyByFingerprint(db, ref.fingerprint);
  if (!key) throw notFound('Key');
  const user = getUser(db, key.user_id);
  return { key, user, identities: identitiesOf(db, [user.id]).get(user.id) ?? [] };
}

/**
 * Adds an SSH key. A key must parse and its fingerprint must be unique across the whole site,
 * since the fingerprint is what names the user on an SSH connection (GITLAB-NOTES 2.8).
 */
export function addSshKey(db: Db, userId: number, input: { title: string; key: string }): SshKeyRow {
  return inTransaction(db, () => {
    getUser(db, userId);
    const parsed = parseSshKey(input.key);
    const errors: FieldErrors = {};
    if (input.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
    if (!parsed) Object.assign(errors, { key: ['is invalid'], fingerprint: ['cannot be generated'] });
    if (!parsed || Object.keys(errors).length) throw invalid(errors);
    if (findSshKeyByFingerprint(db, parsed.fingerprint)) throw invalid({ fingerprint: ['has already been taken'] });
    const id = insertSshKey(db, { user_id: userId, title: input.title, key: parsed.text, fingerprint: parsed.fingerprint, created_at: nowIso() });
    return findSshKey(db, id)!;
  });
}

export function deleteSshKey(db: Db, userId: number, keyId: number): void {
  inTransaction(db, () => {
    getSshKey(db, userId, keyId);
    deleteSshKeyRow(db, keyId);
  });
}
