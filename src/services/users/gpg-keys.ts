import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { deleteGpgKeyRow, findGpgKey, gpgKeyFingerprintTaken, insertGpgKey, listGpgKeysOf, type GpgKeyRow } from '../../db/tables/gpg-keys.js';
import { invalid, notFound } from '../../errors.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import { nowIso } from '../../storage/clock.js';
import { getUser } from './users.js';

/** GitLab's own format check and message for the key text. */
const PUBLIC_KEY_BLOCK = /^-----BEGIN PGP PUBLIC KEY BLOCK-----[\s\S]*-----END PGP PUBLIC KEY BLOCK-----$/;
const NOT_A_PUBLIC_KEY_BLOCK = "is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----'";
const PRIVATE_KEY = 'is a private key; add the public key block only';

interface ParsedGpgKey {
  readonly text: string;
  readonly fingerprint: string;
  readonly primaryKeyId: string;
}

async function parseGpgKey(input: string): Promise<ParsedGpgKey> {
  const text = input.trim();
  if (text.includes('-----BEGIN PGP PRIVATE KEY BLOCK-----')) throw invalid({ key: [PRIVATE_KEY] });
  if (!PUBLIC_KEY_BLOCK.test(text)) throw invalid({ key: [NOT_A_PUBLIC_KEY_BLOCK] });
  let key;
  try {
    const { readKey } = await import('openpgp');
    key = await readKey({ armoredKey: text });
  } catch (error) {
    // A block openpgp cannot read is the caller's malformed input, reported with openpgp's reason.
    throw invalid({ key: [`is not a readable OpenPGP public key: ${(error as Error).message}`] });
  }
  // Secret key packets can hide inside a block armored as public.
  if (key.isPrivate()) throw invalid({ key: [PRIVATE_KEY] });
  return { text, fingerprint: key.getFingerprint().toUpperCase(), primaryKeyId: key.getKeyID().toHex().toUpperCase() };
}

export function listGpgKeys(db: Db, userId: number, page: Page): Paged<GpgKeyRow> {
  getUser(db, userId);
  return listGpgKeysOf(db, userId, page);
}

/** The user's key, or 404 `GPG Key` (also for another user's key). */
export function getGpgKey(db: Db, userId: number, keyId: number): GpgKeyRow {
  getUser(db, userId);
  const row = findGpgKey(db, keyId);
  if (!row || row.user_id !== userId) throw notFound('GPG Key');
  return row;
}

/** Adds an armored public key; its fingerprint must be unique across the site (GITLAB-NOTES 2.8). */
export async function addGpgKey(db: Db, userId: number, armored: string): Promise<GpgKeyRow> {
  getUser(db, userId);
  const parsed = await parseGpgKey(armored);
  return inTransaction(db, () => {
    getUser(db, userId);
    if (gpgKeyFingerprintTaken(db, parsed.fingerprint)) throw invalid({ fingerprint: ['has already been taken'] });
    const id = insertGpgKey(db, {
      user_id: userId,
      key: parsed.text,
      fingerprint: parsed.fingerprint,
      primary_keyid: parsed.primaryKeyId,
      created_at: nowIso(),
    });
    return findGpgKey(db, id)!;
  });
}

/**
 * Deletes the key. GitLab's revoke differs from delete only in marking the commit signatures made
 * with the key unverified; geoforge keeps no signature records, so both routes land here.
 */
export function deleteGpgKey(db: Db, userId: number, keyId: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    // A key never changes after it is added: its creation is its last change.
    assertUnmodifiedSince(unmodifiedSince, getGpgKey(db, userId, keyId).created_at);
    deleteGpgKeyRow(db, keyId);
  });
}
