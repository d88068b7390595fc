import { gitBytes } from './in-repository.js';

/** A commit's OpenPGP signature and the exact bytes it signs (the commit object without its `gpgsig` header). */
export interface CommitSignature {
  readonly armored: string;
  readonly payload: Buffer;
}

const PGP_BEGIN = '-----BEGIN PGP SIGNATURE-----';

/**
 * The OpenPGP signature of a commit, read from its raw object as git verify-commit reads it; null
 * for an unsigned commit, or one signed another way (SSH, X.509).
 */
export async function readCommitSignature(repository: string, sha: string): Promise<CommitSignature | null> {
  const raw = await gitBytes(repository, ['cat-file', 'commit', sha]);
  const headerEnd = raw.indexOf('\n\n');
  const header = (headerEnd < 0 ? raw : raw.subarray(0, headerEnd)).toString('latin1');
  const lines = header.split('\n');
  const kept: string[] = [];
  const signature: string[] = [];
  let inSignature = false;
  for (const line of lines) {
    if (line.startsWith('gpgsig ')) {
      inSignature = true;
      signature.push(line.slice('gpgsig '.length));
    } else if (inSignature && line.startsWith(' ')) {
      signature.push(line.slice(1));
    } else {
      inSignature = false;
      kept.push(line);
    }
  }
  if (!signature.length || signature[0] !== PGP_BEGIN) return null;
  // latin1 both ways keeps every byte as it was: the payload is the signed bytes exactly.
  const payload = Buffer.concat([Buffer.from(kept.join('\n'), 'latin1'), headerEnd < 0 ? Buffer.alloc(0) : raw.subarray(headerEnd)]);
  return { armored: `${signature.join('\n')}\n`, payload };
}
