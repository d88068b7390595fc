import sshpk from 'sshpk';
import { describe, expect, it } from 'vitest';
import { sshPublicKey } from '../helpers/keys.js';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against wiki pages, deploy keys, key lookups and personal access tokens', () => {
  const { section } = pythonGitlabSuite('python_gitlab_wiki_keys.py', { timeoutMs: 30_000 });

  it('creates, gets, lists, saves and deletes wiki pages through project.wikis', async () => {
    const obs = await section('wikis');
    expect(obs.fresh).toEqual([]);
    expect(obs.created).toEqual({ slug: 'Getting-started', title: 'Getting started', format: 'markdown', content: '# Hello\n' });
    expect(obs.nested).toBe('docs/Deep-page');
    expect(obs.got).toEqual({ slug: 'docs/Deep-page', format: 'asciidoc', content: '= Deep\n' });
    expect(obs.listed).toEqual(['Getting-started', 'docs/Deep-page']);
    expect(obs.listed_content).toEqual(['# Hello\n', '= Deep\n']);
    expect(obs.saved).toBe('= Deeper\n');
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Wiki Page Not Found' });
    expect(obs.after_delete).toEqual([]);
    expect(obs.duplicate).toMatchObject({ error: 'GitlabCreateError', code: 400 });
  });

  it('creates, lists, saves, enables and deletes deploy keys through project.keys, and lists them all with gl.deploykeys', async () => {
    const key1 = sshPublicKey('ci@pgl');
    const obs = await section('deploy_keys', { GEOFORGE_KEY1: key1, GEOFORGE_KEY2: sshPublicKey() });
    expect(obs.created).toEqual({ title: 'ci', can_push: true, fingerprint_sha256: sshpk.parseKey(key1, 'ssh').fingerprint('sha256').toString().slice(7) });
    expect(obs.listed).toEqual([[true, 'ci', true]]);
    expect(obs.saved).toEqual({ title: 'renamed', can_push: false });
    expect(obs.enabled).toBe(true);
    expect(obs.other_listed).toEqual(['renamed']);
    expect(obs.site_wide).toEqual(['renamed', 'second']);
    expect(obs.after_delete).toEqual([]);
    expect(obs.still_on_other).toEqual(['renamed', 'second']);
    expect(obs.missing).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.enable_missing).toEqual({ error: 'GitlabProjectDeployKeyError', code: 404, message: '404 Deploy Key Not Found' });
  });

  it('finds a key with its user through gl.keys.get(id) and gl.keys.get(fingerprint=...) in both forms', async () => {
    const key = sshPublicKey();
    const parsed = sshpk.parseKey(key, 'ssh');
    const obs = await section('keys', {
      GEOFORGE_KEY1: key,
      GEOFORGE_KEY1_SHA256: parsed.fingerprint('sha256').toString(),
      GEOFORGE_KEY1_MD5: parsed.fingerprint('md5').toString(),
    });
    expect(obs.by_id).toEqual({ title: 'laptop', user: true });
    expect(obs.by_sha256).toBe(true);
    expect(obs.by_md5).toBe(true);
    expect(obs.missing).toEqual({ error: 'GitlabHttpError', code: 404, message: '404 Key Not Found' });
  });

  it('creates a token with user.personal_access_tokens, lists and revokes with gl.personal_access_tokens', async () => {
    const obs = await section('personal_access_tokens');
    expect(obs.created).toEqual({ name: 'script', scopes: ['api', 'read_user'], token: true, user_id: true });
    expect(obs.authenticated_as).toBe(true);
    expect(obs.own_list).toEqual(['script']);
    expect(obs.admin_list).toEqual(['script']);
    expect(obs.self).toEqual({ name: 'script', active: true, revoked: false });
    expect(obs.other_user).toMatchObject({ error: 'GitlabAuthenticationError', code: 401 });
    expect(obs.revoked_use).toMatchObject({ error: 'GitlabAuthenticationError', code: 401 });
    expect(obs.after_revoke).toEqual([['script', false, true]]);
  });
});
