import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

const SIGNER = 'signer@example.com';
const exec = promisify(execFile);

/**
 * GET commits/:sha/signature (issue 17, item 1): a commit signed with `git commit -S` by a key made
 * with the machine's gpg in a temporary GNUPGHOME, verified against the keys users registered
 * through the GPG keys API, with GitLab's verification statuses.
 */
describe('commit signatures', () => {
  let site: TestSite;
  let scratch: string;
  let work: string;
  let gnupgHome: string;
  let fingerprint: string;
  let subkeyFingerprint: string;
  let armoredKey: string;
  let owner: TestUser;
  let signer: TestUser;
  let other: TestUser;
  let guest: TestUser;
  let project: any;
  const sha: Record<string, string> = {};
  const git = (args: string[], env: Record<string, string> = {}) => gitClient(scratch, 20_000)(args, work, { GNUPGHOME: gnupgHome, ...env });
  /** The machine's gpg on the temporary GNUPGHOME, without a passphrase or a terminal. */
  const gpg = async (args: string[]) =>
    (await exec('gpg', ['--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { env: { ...process.env, GNUPGHOME: gnupgHome } })).stdout;
  const signature = (commit: string, as: string | null = owner.token) => site.api(`/projects/${project.id}/repository/commits/${commit}/signature`, { as });

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-sign-'));
    gnupgHome = await mkdtemp(path.join(tmpdir(), 'gnupg-'));
    work = path.join(scratch, 'work');
    owner = await createUser(site);
    // The signer's primary email is the key's user ID, confirmed: a verified email, as GitLab requires.
    signer = await createUser(site, { email: SIGNER, skip_confirmation: true });
    other = await createUser(site, { skip_confirmation: true });
    guest = await createUser(site);
    project = await createProject(site, { visibility: 'private', default_branch: 'main' }, owner.token);
    await addMember(site, 'projects', project.id, guest, 10, owner.token);

    await gpg(['--quick-gen-key', `Signer <${SIGNER}>`, 'ed25519', 'sign', 'never']);
    fingerprint = (await gpg(['--with-colons', '--list-keys', SIGNER])).split('\n').find((line) => line.startsWith('fpr:'))!.split(':')[9]!;
    // A signing subkey too: many keys sign with a subkey, which the site keeps no row for.
    await gpg(['--quick-add-key', fingerprint, 'ed25519', 'sign', 'never']);
    subkeyFingerprint = (await gpg(['--with-colons', '--list-keys', SIGNER])).split('\n').filter((line) => line.startsWith('fpr:'))[1]!.split(':')[9]!;
    armoredKey = await gpg(['--armor', '--export', SIGNER]);

    await runGit(['init', '--quiet', '-b', 'main', work]);
    // `!` makes gpg sign with exactly that key, not the newest signing subkey.
    const signed = ['-c', 'gpg.program=gpg', '-c', `user.signingkey=${fingerprint}!`];
    const committer = { GIT_COMMITTER_NAME: 'Signer', GIT_COMMITTER_EMAIL: SIGNER };
    await writeFile(path.join(work, 'a.txt'), 'a\n');
    await git(['add', '.']);
    await git(['commit', '--quiet', '-m', 'unsigned']);
    sha.unsigned = (await git(['rev-parse', 'HEAD'])).stdout.trim();
    await writeFile(path.join(work, 'b.txt'), 'b\n');
    await git(['add', '.']);
    await git([...signed, 'commit', '--quiet', '-S', '-m', 'signed by the signer'], committer);
    sha.signed = (await git(['rev-parse', 'HEAD'])).stdout.trim();
    await writeFile(path.join(work, 'c.txt'), 'c\n');
    await git(['add', '.']);
    await git([...signed, 'commit', '--quiet', '-S', '-m', 'signed, committed as someone else'], { GIT_COMMITTER_EMAIL: 'someone@example.com' });
    sha.otherCommitter = (await git(['rev-parse', 'HEAD'])).stdout.trim();
    await writeFile(path.join(work, 'd.txt'), 'd\n');
    await git(['add', '.']);
    await git(['-c', 'gpg.program=gpg', '-c', `user.signingkey=${subkeyFingerprint}!`, 'commit', '--quiet', '-S', '-m', 'signed with the subkey'], committer);
    sha.bySubkey = (await git(['rev-parse', 'HEAD'])).stdout.trim();
    expect((await git(['cat-file', 'commit', sha.signed])).stdout).toContain('-----BEGIN PGP SIGNATURE-----');
    await git(['push', '--quiet', remoteUrl(site.url, project, owner), 'main']);
  });
  afterAll(async () => {
    await site.stop();
    // The agent gpg started for the temporary home goes with it.
    await exec('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gnupgHome } }).catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
    await rm(gnupgHome, { recursive: true, force: true });
  });

  it('answers 404 Signature for an unsigned commit and 404 Commit for an unknown one', async () => {
    const unsigned = await signature(sha.unsigned);
    expect(unsigned.status).toBe(404);
    expect(unsigned.body.message).toBe('404 Signature Not Found');
    expect((await signature('nope')).body.message).toBe('404 Commit Not Found');
    expect((await signature(sha.signed, guest.token)).status).toBe(403);
    expect((await signature(sha.signed, null)).status).toBe(404);
  });

  it('shows unknown_key while no user registered the key', async () => {
    const unknown = await signature(sha.signed);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({
      signature_type: 'PGP',
      gpg_key_id: null,
      gpg_key_primary_keyid: fingerprint.slice(-16),
      gpg_key_user_name: null,
      gpg_key_user_email: null,
      verification_status: 'unknown_key',
      gpg_key_subkey_id: null,
    });
    expect((await signature(sha.bySubkey)).body).toMatchObject({ gpg_key_id: null, gpg_key_primary_keyid: subkeyFingerprint.slice(-16), verification_status: 'unknown_key' });
  });

  it('shows unverified_key for a key registered by a user none of whose emails is the key’s', async () => {
    const key = await site.api(`/users/${other.id}/gpg_keys`, { method: 'POST', body: { key: armoredKey } });
    expect(key.status).toBe(201);
    const unverified = await signature(sha.signed);
    expect(unverified.body).toMatchObject({ gpg_key_id: key.body.id, gpg_key_primary_keyid: fingerprint.slice(-16), gpg_key_user_email: SIGNER, verification_status: 'unverified_key' });
    expect((await site.api(`/users/${other.id}/gpg_keys/${key.body.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('shows verified for the committer’s registered key, and other_user for a commit committed by someone else', async () => {
    const key = await site.api('/user/gpg_keys', { method: 'POST', as: signer.token, body: { key: armoredKey } });
    expect(key.status).toBe(201);
    const verified = await signature(sha.signed);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      signature_type: 'PGP',
      gpg_key_id: key.body.id,
      gpg_key_primary_keyid: fingerprint.slice(-16),
      gpg_key_user_name: 'Signer',
      gpg_key_user_email: SIGNER,
      verification_status: 'verified',
      gpg_key_subkey_id: null,
    });
    expect((await signature(sha.otherCommitter)).body.verification_status).toBe('other_user');
    // A subkey's signature is found through the keys of the committer's user, shown with the primary key id.
    expect((await signature(sha.bySubkey)).body).toMatchObject({ gpg_key_id: key.body.id, gpg_key_primary_keyid: fingerprint.slice(-16), verification_status: 'verified' });
  });

  it('shows unverified for a signature that does not hold over the commit', async () => {
    // The same signature moved onto another commit object: the key is known, the bytes it signed are not these.
    const raw = (await git(['cat-file', 'commit', sha.signed])).stdout.replace('signed by the signer', 'tampered with');
    await writeFile(path.join(scratch, 'tampered'), raw);
    const forged = (await git(['hash-object', '-t', 'commit', '-w', path.join(scratch, 'tampered')])).stdout.trim();
    await git(['update-ref', 'refs/heads/forged', forged]);
    await git(['push', '--quiet', remoteUrl(site.url, project, owner), 'forged']);
    expect((await signature('forged')).body.verification_status).toBe('unverified');
  });
});
