import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against the repository browsing API (issue 17, item 1)', () => {
  const { section } = pythonGitlabSuite('python_gitlab_repository.py', { timeoutMs: 60_000 });

  it('browses trees, blobs, archives, contributors, the merge base and compare through the project’s repository_* methods', async () => {
    const obs = await section('browse');
    expect(obs.tree).toEqual([
      ['tree', 'docs'],
      ['blob', 'README.md'],
    ]);
    expect(obs.tree_docs).toEqual(['docs/guide.md']);
    expect(obs.tree_recursive).toEqual(['docs', 'README.md', 'docs/guide.md']);
    expect(obs.tree_feature).toEqual(['README.md', 'docs', 'feature.txt']);
    expect(obs.tree_unknown_ref).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Tree Not Found' });
    expect(obs.blob).toEqual({ sha: true, size: 14, encoding: 'base64', content: '# hello\nagain\n' });
    expect(obs.raw_blob).toBe('# hello\nagain\n');
    expect(obs.missing_blob).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Blob Not Found' });
    const prefix = obs.prefix as string;
    expect(obs.archive_tar_gz).toEqual([`${prefix}/README.md`, `${prefix}/docs/guide.md`]);
    expect(obs.archive_readme).toBe('# hello\nagain\n');
    expect(obs.zip_prefix).toMatch(/^pglrepo.+-feature-[0-9a-f]{40}$/);
    expect(obs.archive_zip).toEqual(['README.md', 'docs/guide.md', 'feature.txt'].map((name) => `${obs.zip_prefix}/${name}`));
    expect(obs.archive_bz2_path).toEqual([`${prefix}-docs/docs/guide.md`]);
    expect(obs.archive_unknown).toEqual({ error: 'GitlabListError', code: 404, message: '404 File Not Found' });
    // Equal counts keep the order the history met them in, newest first.
    expect(obs.contributors).toEqual([
      ['Bob', 'bob@example.com', 1],
      ['Alice', 'alice@example.com', 1],
    ]);
    expect(obs.contributors_by_name).toEqual(['Bob', 'Alice']);
    expect(obs.merge_base).toBe(true);
    expect(obs.merge_base_one).toEqual({ error: 'GitlabGetError', code: 400, message: 'Provide at least 2 refs' });
    expect(obs.merge_base_unknown).toEqual({ error: 'GitlabGetError', code: 400, message: 'Could not find ref: nope' });
    expect(obs.compare).toEqual(['README.md']);
    expect(obs.compare_straight).toEqual(['README.md', 'feature.txt']);
  });

  it('reads file headers (files.head), blame, commit refs, the signature and commit comments and discussions', async () => {
    const obs = await section('files_and_commits');
    expect(obs.head).toEqual({
      'X-Gitlab-File-Name': 'guide.md',
      'X-Gitlab-File-Path': 'docs/guide.md',
      'X-Gitlab-Size': '6',
      'X-Gitlab-Encoding': 'base64',
      'X-Gitlab-Ref': 'main',
      'X-Gitlab-Commit-Id': obs.ids.second,
      'X-Gitlab-Last-Commit-Id': obs.ids.first,
      'X-Gitlab-Content-Sha256': '90c390ec1de806bf945885cd0af51e90c3cd8cda0d0ff676051a56c20848c90f',
    });
    expect(obs.head_blob_id).toBe(40);
    expect(obs.head_missing).toMatchObject({ error: 'GitlabHeadError', code: 404 });
    expect(obs.blame).toEqual([
      ['first', ['# hello']],
      ['second', ['again']],
    ]);
    expect(obs.refs).toEqual([
      ['branch', 'feature'],
      ['branch', 'main'],
    ]);
    expect(obs.refs_branch).toEqual(['main']);
    expect(obs.signature).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Signature Not Found' });
    expect(obs.comment).toEqual({ note: 'Nice first commit', author: 'root', path: null });
    expect(obs.line_comment).toEqual({ path: 'README.md', line: 2, line_type: 'new' });
    expect(obs.comments).toEqual(['Nice first commit']);
    expect(obs.comment_blank).toEqual({ error: 'GitlabCreateError', code: 400, message: 'Failed to save note {:note=>["can\'t be blank"]}' });
    expect(obs.discussion).toEqual(['A thread', 'An answer']);
    expect(obs.edited).toBe('An edited answer');
    expect(obs.discussions).toEqual([
      [true, ['Nice first commit']],
      [false, ['A thread', 'An edited answer']],
    ]);
    expect(obs.after_delete).toEqual(['A thread']);
  });
});
