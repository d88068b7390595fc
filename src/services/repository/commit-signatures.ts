import type { Key, Signature } from 'openpgp';
import type { Db } from '../../db/connection.js';
import { emailsOfUser } from '../../db/tables/emails.js';
import { findGpgKeyByFingerprint, findGpgKeyByPrimaryKeyId, gpgKeysOfUser, type GpgKeyRow } from '../../db/tables/gpg-keys.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { findUserByAnyEmail, findUserById } from '../../db/tables/users.js';
import { notFound } from '../../errors.js';
import { readCommit } from '../../git/commit-log.js';
import { repositoryOf } from '../../git/in-repository.js';
import { readCommitSignature } from '../../git/signatures.js';
import type { SiteContext } from '../../site-context.js';
import { commitOf } from './project-commits.js';

/** openpgp (about 110 ms to load) is loaded by the first signature check, not at boot. */
const openpgp = () => import('openpgp');

/** GitLab's GpgSignature verification statuses (Gitlab::Gpg::Commit#verification_status, 10.x). */
export type VerificationStatus = 'verified' | 'unverified' | 'same_user_different_email' | 'other_user' | 'unverified_key' | 'unknown_key';

/** What GitLab's CommitSignature entity shows of a commit's GPG signature. */
export interface CommitSignatureRecord {
  readonly gpgKeyId: number | null;
  readonly primaryKeyId: string;
  readonly userName: string | null;
  readonly userEmail: string | null;
  readonly status: VerificationStatus;
}

const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The registered key that made the signature: by its issuer fingerprint or key id when the primary
 * key signed. A signing subkey is not a row here (GitLab keeps gpg_key_subkeys): its key is found
 * among the keys of the user the committer email belongs to, whose subkeys are read.
 */
async function registeredKeyOf(db: Db, signature: Signature, committerEmail: string): Promise<{ row: GpgKeyRow | undefined; key: Key | undefined; keyId: string }> {
  const packet = signature.packets[0];
  const issuer = signature.getSigningKeyIDs()[0];
  const keyId = (issuer?.toHex() ?? '').toUpperCase();
  const fingerprint = packet?.issuerFingerprint ? Buffer.from(packet.issuerFingerprint).toString('hex').toUpperCase() : null;
  const row = (fingerprint ? findGpgKeyByFingerprint(db, fingerprint) : undefined) ?? (keyId ? findGpgKeyByPrimaryKeyId(db, keyId) : undefined);
  if (row) return { row, key: await (await openpgp()).readKey({ armoredKey: row.key }), keyId };
  const committer = issuer ? findUserByAnyEmail(db, committerEmail) : undefined;
  for (const candidate of committer ? gpgKeysOfUser(db, committer.id) : []) {
    const key = await (await openpgp()).readKey({ armoredKey: candidate.key });
    if (key.getSubkeys(issuer).length > 0) return { row: candidate, key, keyId };
  }
  return { row: undefined, key: undefined, keyId };
}

/** Whether the signature verifies against the key, over exactly the signed bytes. */
async function signatureHolds(signature: Signature, key: Key, payload: Buffer): Promise<boolean> {
  const message = await (await openpgp()).createMessage({ binary: new Uint8Array(payload) });
  const { signatures } = await (await openpgp()).verify({ message, signature, verificationKeys: key });
  try {
    await signatures[0]?.verified;
    return signatures.length > 0;
  } catch {
    // A signature that does not hold is an answer (`unverified`), not a failure.
    return false;
  }
}

/**
 * The GPG signature of the commit `ref` names, verified against the keys users registered
 * (GitLab's Gitlab::Gpg::Commit): 404 `Commit`, 404 `Signature` for an unsigned commit. Its status:
 * `unknown_key` when no registered key made it; `unverified_key` when none of the key's user IDs
 * is a verified email of its owner; `unverified` when the signature does not hold; `verified` when
 * the committer email is one of the key's verified emails; `same_user_different_email` when it is
 * another email of the key's owner; `other_user` otherwise. Verified emails are the confirmed
 * primary email and the confirmed secondary ones, as GitLab's verified_emails.
 */
export async function verifyCommitSignature(ctx: SiteContext, project: ProjectRow, ref: string): Promise<CommitSignatureRecord> {
  const repository = repositoryOf(ctx, project);
  const sha = await commitOf(repository, ref);
  const signed = await readCommitSignature(repository, sha);
  if (!signed) throw notFound('Signature');
  let signature: Signature;
  try {
    signature = await (await openpgp()).readSignature({ armoredSignature: signed.armored });
  } catch {
    // A gpgsig header openpgp cannot read holds no signature GitLab would show either.
    throw notFound('Signature');
  }
  const { committerEmail } = await readCommit(repository, sha);
  const { row, key, keyId } = await registeredKeyOf(ctx.db, signature, committerEmail);
  if (!row || !key) return { gpgKeyId: null, primaryKeyId: keyId, userName: null, userEmail: null, status: 'unknown_key' };

  const owner = findUserById(ctx.db, row.user_id);
  const secondary = owner ? emailsOfUser(ctx.db, owner.id) : [];
  const verifiedEmails = [...(owner?.confirmed_at ? [owner.email] : []), ...secondary.filter((email) => email.confirmed_at !== null).map((email) => email.email)];
  const allEmails = [...(owner ? [owner.email] : []), ...secondary.map((email) => email.email)];
  const userInfos = key.users.flatMap((user) => (user.userID ? [{ name: user.userID.name || null, email: user.userID.email || null }] : []));
  const verifiedInfos = userInfos.filter((info) => info.email !== null && verifiedEmails.some((email) => sameEmail(email, info.email!)));
  const shown = verifiedInfos[0] ?? userInfos[0] ?? { name: null, email: null };
  const record = { gpgKeyId: row.id, primaryKeyId: row.primary_keyid, userName: shown.name, userEmail: shown.email };

  if (verifiedInfos.length === 0) return { ...record, status: 'unverified_key' };
  if (!(await signatureHolds(signature, key, signed.payload))) return { ...record, status: 'unverified' };
  if (verifiedInfos.some((info) => sameEmail(info.email!, committerEmail))) return { ...record, status: 'verified' };
  if (allEmails.some((email) => sameEmail(email, committerEmail))) return { ...record, status: 'same_user_different_email' };
  return { ...record, status: 'other_user' };
}
