import type Sshpk from 'sshpk';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { deployKeyProjectsOf, findDeployKeyByFingerprint, findDeployKeyByMd5, type DeployKeyProjectRow, type DeployKeyRow } from '../../db/tables/deploy-keys.js';
import {
  deleteSshKeyRow,
  findSshKey,
  findSshKeyByFingerprint,
  findSshKeyByMd5,
  insertSshKey,
  listSshKeysOf,
  listSshKeysWithoutMd5,
  setSshKeyMd5,
  type SshKeyRow,
} from '../../db/tables/ssh-keys.js';
import { findUserById, identitiesOf, type IdentityRow, type UserRow } from '../../db/tables/users.js';
import { badRequest, invalid, notFound, type FieldErrors } from '../../errors.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import { nowIso } from '../../storage/clock.js';
import { getUser } from './users.js';
import { lazyModule } from '../../lazy-module.js';

const sshpk = lazyModule<typeof Sshpk>('sshpk');

export interface ParsedSshKey {
  /** `<type> <base64>[ <comment>]`, the form GitLab stores and returns. */
  readonly text: string;
  /** OpenSSH's `SHA256:<base64>` form, which python-gitlab's tests look keys up by. */
  readonly fingerprint: string;
  /** The colon-separated MD5 form (`aa:bb:...`), GitLab's `fingerprint`. */
  readonly fingerprintMd5: string;
}

/** Parses one OpenSSH public key line; null when it is not one. SSH keys and deploy keys are read alike. */
export function parseSshKey(input: string): ParsedSshKey | null {
  // GitLab drops the line breaks a paste leaves inside the base64 before parsing.
  const line = input.replace(/[\r\n]/g, '').trim();
  let key: Sshpk.Key;
  try {
    key = sshpk().parseKey(line, 'ssh');
  } catch {
    // Whatever sshpk rejects is a malformed key, reported to the caller as a field error.
    return null;
  }
  // sshpk names a comment-less key "(unnamed)", so the comment is taken from the input itself.
  const [type, blob] = key.toString('ssh').split(' ');
  const comment = line.split(/\s+/).slice(2).join(' ');
  return { text: [type, blob, comment].filter(Boolean).join(' '), fingerprint: key.fingerprint('sha256').toString(), fingerprintMd5: key.fingerprint('md5').toString() };
}

/**
 * Whether a fingerprint is taken by any key of the site, an account's or a deploy key: GitLab keeps
 * both in one keys table with one uniqueness rule, since the fingerprint names the key on an SSH connection.
 */
export function isFingerprintTaken(db: Db, fingerprint: string): boolean {
  return findSshKeyByFingerprint(db, fingerprint) !== undefined || findDeployKeyByFingerprint(db, fingerprint) !== undefined;
}

/**
 * A fingerprint as GET /keys?fingerprint= takes it (GitLab's KeysFinder): `SHA256:<base64>` (any
 * case of the prefix) or the colon-separated MD5, with or without `MD5:`; 400 otherwise.
 */
function fingerprintLookup(fingerprint: string): { sha256: string } | { md5: string } {
  const trimmed = fingerprint.trim();
  if (/^sha256:/i.test(trimmed)) return { sha256: `SHA256:${trimmed.slice('sha256:'.length)}` };
  const md5 = trimmed.replace(/^md5:/i, '').toLowerCase();
  if (!/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/.test(md5)) throw badRequest('Failed to return the key');
  return { md5 };
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

const findSshKeyByEitherFingerprint = (db: Db, lookup: { sha256: string } | { md5: string }) =>
  'sha256' in lookup ? findSshKeyByFingerprint(db, lookup.sha256) : findSshKeyByMd5(db, lookup.md5);

/** What GET /keys?fingerprint= finds: a user's SSH key with its owner, or a deploy key with who added it and its projects. */
export type FingerprintMatch =
  | { kind: 'ssh'; key: SshKeyRow; user: UserRow; identities: IdentityRow[] }
  | { kind: 'deploy'; key: DeployKeyRow; user: { row: UserRow; identities: IdentityRow[] } | null; links: DeployKeyProjectRow[] };

/** A key by fingerprint (either form): users' keys first, then deploy keys (keys.rb); 404 `Key` when none has it. */
export function findAnyKeyByFingerprint(db: Db, fingerprint: string): FingerprintMatch {
  const lookup = fingerprintLookup(fingerprint);
  if (findSshKeyByEitherFingerprint(db, lookup)) return { kind: 'ssh', ...getSshKeyWithOwner(db, { fingerprint }) };
  const key = 'sha256' in lookup ? findDeployKeyByFingerprint(db, lookup.sha256) : findDeployKeyByMd5(db, lookup.md5);
  if (!key) throw notFound('Key');
  const owner = key.user_id === null ? undefined : findUserById(db, key.user_id);
  const user = owner && !owner.ghost ? { row: owner, identities: identitiesOf(db, [owner.id]).get(owner.id) ?? [] } : null;
  return { kind: 'deploy', key, user, links: deployKeyProjectsOf(db, key.id) };
}

/** Any user's key with its owner, by id or fingerprint, for the admin lookups GET /keys/:id and GET /keys?fingerprint=. */
export function getSshKeyWithOwner(db: Db, ref: { id: number } | { fingerprint: string }): { key: SshKeyRow; user: UserRow; identities: IdentityRow[] } {
  const key = 'id' in ref ? findSshKey(db, ref.id) : findSshKeyByEitherFingerprint(db, fingerprintLookup(ref.fingerprint));
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
    if (isFingerprintTaken(db, parsed.fingerprint)) throw invalid({ fingerprint: ['has already been taken'] });
    const id = insertSshKey(db, {
      user_id: userId,
      title: input.title,
      key: parsed.text,
      fingerprint: parsed.fingerprint,
      fingerprint_md5: parsed.fingerprintMd5,
      created_at: nowIso(),
    });
    return findSshKey(db, id)!;
  });
}

export function deleteSshKey(db: Db, userId: number, keyId: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    // A key never changes after it is added: its creation is its last change.
    assertUnmodifiedSince(unmodifiedSince, getSshKey(db, userId, keyId).created_at);
    deleteSshKeyRow(db, keyId);
  });
}

/**
 * Gives keys made before migration 15 their MD5 fingerprint, so GET /keys?fingerprint= finds them
 * in that form too. Runs on the primary at boot (a secondary gets the rows replicated); a key that
 * no longer parses keeps null and is left to its SHA256 form.
 */
export function fillMd5Fingerprints(db: Db): number {
  let filled = 0;
  for (let afterId = 0; ; ) {
    const rows = listSshKeysWithoutMd5(db, afterId, 500);
    if (rows.length === 0) return filled;
    afterId = rows.at(-1)!.id;
    inTransaction(db, () => {
      for (const row of rows) {
        const parsed = parseSshKey(row.key);
        if (!parsed) continue;
        setSshKeyMd5(db, row.id, parsed.fingerprintMd5);
        filled += 1;
      }
    });
  }
}
