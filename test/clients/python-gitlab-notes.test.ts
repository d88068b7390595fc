import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against the notes, discussions, award emoji and resource events APIs', () => {
  const suite = pythonGitlabSuite('python_gitlab_notes.py', { timeoutMs: 30_000 });

  it('drives issue.notes, issue.discussions, issue.awardemojis, note.awardemojis and the resource event managers', async () => {
    const obs = await suite.section('notes');
    expect(obs.notes).toEqual([
      [expect.stringMatching(/^added ~\d+ label$/), true, obs.issue_iid],
      ['first, edited', false, obs.issue_iid],
      ['second', false, obs.issue_iid],
    ]);
    expect(obs.note_get).toBe('first, edited');
    expect(obs.foreign_edit).toMatchObject({ error: 'GitlabUpdateError', code: 403 });
    expect(obs.after_delete).toEqual(['second']);
    expect(obs.missing).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.user_notes_count).toBe(1);

    expect(obs.thread).toEqual({ individual_note: false, bodies: ['thread', 'reply, edited'], id_length: 40 });
    expect(obs.discussions).toEqual([
      [true, [expect.stringMatching(/^added ~\d+ label$/)]],
      [true, ['second']],
      [false, ['thread', 'reply, edited']],
    ]);

    expect(obs.award).toEqual({ name: 'thumbsup', awardable_type: 'Issue', user: expect.stringMatching(/^pglnt/) });
    expect(obs.upvotes).toBe(1);
    expect(obs.duplicate).toMatchObject({ error: 'GitlabCreateError', code: 404 });
    expect(obs.not_emoji).toMatchObject({ error: 'GitlabCreateError', code: 404 });
    // GitLab's API::AwardEmoji answers `unauthorized!` (401) for another user's award; python-gitlab reads any 401 as an authentication error.
    expect(obs.others_award).toMatchObject({ error: 'GitlabAuthenticationError', code: 401 });
    expect(obs.awards_after).toBe(0);
    expect(obs.note_award).toEqual({ name: 'rocket', awardable_type: 'Note', listed: ['rocket'] });

    expect(obs.label_events).toEqual([
      ['add', 'bug', 'Issue'],
      ['add', 'feature', 'Issue'],
      ['remove', 'bug', 'Issue'],
    ]);
    expect(obs.milestone_events).toEqual([['add', 'v1', 'opened']]);
    expect(obs.state_events).toEqual(['closed']);
    expect(obs.system_notes).toEqual([expect.stringMatching(/^added ~\d+ label$/), 'changed milestone to %1', expect.stringMatching(/^added ~\d+ and removed ~\d+ labels$/), 'closed']);
  });
});
