import { describe, expect, it } from 'vitest';
import { maskedMirrorUrl } from '../../src/entities/remote-mirrors.js';

/** GitLab's safe_url: a push mirror's user name and password each shown as `*****`, the rest as given. */
describe('maskedMirrorUrl', () => {
  it('masks the user name and the password, each when present', () => {
    expect(maskedMirrorUrl('https://bot:s3cret@example.com/group/repo.git')).toBe('https://*****:*****@example.com/group/repo.git');
    expect(maskedMirrorUrl('https://bot@example.com/repo.git')).toBe('https://*****@example.com/repo.git');
    expect(maskedMirrorUrl('https://:s3cret@example.com/repo.git')).toBe('https://:*****@example.com/repo.git');
    expect(maskedMirrorUrl('http://bot:p%40ss:word@127.0.0.1:8080/r.git')).toBe('http://*****:*****@127.0.0.1:8080/r.git');
  });

  it('leaves a URL without credentials, and an @ after the host, as given', () => {
    expect(maskedMirrorUrl('https://example.com/repo.git')).toBe('https://example.com/repo.git');
    expect(maskedMirrorUrl('https://example.com/users/a@b/repo.git')).toBe('https://example.com/users/a@b/repo.git');
  });
});
