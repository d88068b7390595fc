import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against branches, tags, protected refs and transfers', () => {
  const { section } = pythonGitlabSuite('python_gitlab_refs.py', { timeoutMs: 30_000 });

  it('creates, gets, lists and deletes branches (an encoded unicode name) and tags, lightweight and annotated, through project.branches and project.tags', async () => {
    const obs = await section('branches_tags');
    expect(obs.created).toEqual({ name: 'feature/ünï.1', protected: false, merged: false });
    expect(obs.got).toBe('feature/ünï.1');
    expect(obs.listed).toEqual(['feature/ünï.1', 'master']);
    expect(obs.master).toEqual({ protected: true, developers_can_push: false, developers_can_merge: false, default: true });
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Branch Not Found' });
    expect(obs.tags).toEqual([
      ['v1.0', null, true],
      ['v2.0', 'second', true],
    ]);
    expect(obs.annotated_target_is_tag).toBe(true);
    expect(obs.duplicate).toEqual({ error: 'GitlabCreateError', code: 400, message: 'Tag v1.0 already exists' });
    expect(obs.after_delete).toEqual(['v2.0']);
    expect(obs.missing).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Tag Not Found' });
  });

  it('protects branches and tags through project.protectedbranches and project.protectedtags', async () => {
    const obs = await section('protected');
    expect(obs.default_row).toEqual([['master', 40]]);
    expect(obs.created).toEqual({ name: 'release-*', push: 30, merge: 40 });
    expect(obs.got).toBe('release-*');
    expect(obs.duplicate).toEqual({ error: 'GitlabCreateError', code: 409, message: "Protected branch 'release-*' already exists" });
    expect(obs.branch).toEqual({ protected: true, developers_can_push: true });
    expect(obs.after_delete).toEqual(['master']);
    expect(obs.unprotected_branch).toBe(false);
    expect(obs.tag_created).toEqual({ name: 'v*', create: 40 });
    expect(obs.tag_listed).toEqual(['v*']);
    expect(obs.tag_got).toBe('v*');
    expect(obs.tag_missing).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Not found' });
  });

  it('moves a project (transfer, and the deprecated transfer_project) and a group (group.transfer), reads languages and runs housekeeping', async () => {
    const obs = await section('moves');
    expect(obs.transferred).toMatch(/^pglmoves.+\/pglmoves/);
    expect(obs.transfer_project).toEqual({ path: expect.stringMatching(/^root\/pglmoves/), deprecated: true });
    expect(obs.same_namespace).toEqual({
      error: 'GitlabTransferProjectError',
      code: 400,
      message: 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}',
    });
    expect(obs.group_moved).toMatch(/^pglparent.+\/pglmoves/);
    expect(obs.group_root).toMatch(/^pglmoves/);
    expect(obs.group_again).toEqual({ error: 'GitlabGroupTransferError', code: 400, message: 'Transfer failed: Group is already a root group.' });
    expect(obs.languages).toEqual({ Python: 100 });
    expect(obs.housekept).toBe(true);
  });
});
