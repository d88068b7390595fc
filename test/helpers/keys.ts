import { generateKeyPairSync } from 'node:crypto';
import { generateKey } from 'openpgp';
import sshpk from 'sshpk';

/** A fresh ed25519 public key as one OpenSSH line: `ssh-ed25519 <base64> <comment>`. */
export function sshPublicKey(comment = 'test@geoforge'): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const key = sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }), 'pem');
  key.comment = comment;
  return key.toString('ssh');
}

/** A fresh armored OpenPGP key pair (ed25519) for the given address. */
export async function gpgKeyPair(email: string): Promise<{ publicKey: string; privateKey: string }> {
  const { publicKey, privateKey } = await generateKey({ type: 'ecc', curve: 'ed25519Legacy', userIDs: [{ name: 'Test', email }], format: 'armored' });
  return { publicKey, privateKey };
}
