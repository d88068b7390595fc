import { describe, expect, it } from 'vitest';
import { BLANK_SHA } from '../../src/git/object-names.js';
import { PUSH_COMMITS_LIMIT, pushPayload, tagPushPayload, type HookCommit, type PushInput } from '../../src/services/hooks/payloads.js';

const commit = (n: number): HookCommit => ({
  id: n.toString(16).padStart(40, '0'),
  message: `commit ${n}\n`,
  timestamp: '2018-05-01T10:00:00+02:00',
  author: { name: 'Ada', email: 'ada@example.com' },
  added: [`file${n}`],
  modified: [],
  removed: [],
});

const input: PushInput = {
  user: { id: 7, name: 'Ada Lovelace', username: 'ada', email: 'ada@example.com', avatar_url: 'http://forge.example/avatar.png' },
  project: {
    id: 3,
    name: 'Engine',
    description: 'Analytical',
    web_url: 'http://forge.example/ada/engine',
    avatar_url: null,
    git_ssh_url: 'git@forge.example:ada/engine.git',
    git_http_url: 'http://forge.example/ada/engine.git',
    namespace: 'Ada Lovelace',
    visibility_level: 20,
    path_with_namespace: 'ada/engine',
    default_branch: 'master',
    ci_config_path: null,
  },
  before: '1'.repeat(40),
  after: '2'.repeat(40),
  ref: 'refs/heads/master',
  commits: Array.from({ length: 25 }, (_, i) => commit(i + 1)),
};

describe('webhook payloads', () => {
  it('builds GitLab’s push payload, with the newest 20 commits and the full count', () => {
    const payload = pushPayload(input);
    expect(payload).toMatchObject({
      object_kind: 'push',
      event_name: 'push',
      before: input.before,
      after: input.after,
      ref: 'refs/heads/master',
      checkout_sha: input.after,
      message: null,
      user_id: 7,
      user_name: 'Ada Lovelace',
      user_username: 'ada',
      user_email: 'ada@example.com',
      user_avatar: 'http://forge.example/avatar.png',
      project_id: 3,
      project: {
        ...input.project,
        homepage: 'http://forge.example/ada/engine',
        url: 'git@forge.example:ada/engine.git',
        ssh_url: 'git@forge.example:ada/engine.git',
        http_url: 'http://forge.example/ada/engine.git',
      },
      total_commits_count: 25,
      repository: {
        name: 'Engine',
        url: 'git@forge.example:ada/engine.git',
        description: 'Analytical',
        homepage: 'http://forge.example/ada/engine',
        git_http_url: 'http://forge.example/ada/engine.git',
        git_ssh_url: 'git@forge.example:ada/engine.git',
        visibility_level: 20,
      },
    });
    expect(payload.commits).toHaveLength(PUSH_COMMITS_LIMIT);
    expect(payload.commits[0].id).toBe(commit(6).id);
    expect(payload.commits[19]).toEqual({
      id: commit(25).id,
      message: 'commit 25\n',
      timestamp: '2018-05-01T10:00:00+02:00',
      url: `http://forge.example/ada/engine/commit/${commit(25).id}`,
      author: { name: 'Ada', email: 'ada@example.com' },
      added: ['file25'],
      modified: [],
      removed: [],
    });
  });

  it('builds the tag push payload, with no checkout_sha for a deleted ref', () => {
    const payload = tagPushPayload({ ...input, ref: 'refs/tags/v1', after: BLANK_SHA, commits: [], message: 'release' });
    expect(payload).toMatchObject({ object_kind: 'tag_push', event_name: 'tag_push', checkout_sha: null, message: 'release', commits: [], total_commits_count: 0 });
  });
});
