import { describe, expect, it } from 'vitest';
import { GitError } from '../../src/git/cli.js';
import { describeFailure, SyncFailure } from '../../src/geo/sync/failure.js';

describe('describeFailure', () => {
  it('keeps the kind of a SyncFailure and the texts of its causes, once each', () => {
    const git = new GitError(['clone', '--mirror'], 128, "fatal: repository 'http://p/api/v4/geo/git/repository/7.git/' not found");
    const failure = describeFailure(new SyncFailure('sync', 'the repository is missing on the primary', true, { cause: git }));
    expect(failure).toEqual({
      failureType: 'sync',
      missingOnPrimary: true,
      message: "the repository is missing on the primary: git clone --mirror failed (exit 128): fatal: repository 'http://p/api/v4/geo/git/repository/7.git/' not found",
    });
  });

  it('records any other error as a sync failure with its own text, a cause its wrapper quotes only once', () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:1');
    expect(describeFailure(new Error(`primary unreachable: ${cause.message}`, { cause }))).toEqual({
      failureType: 'sync',
      missingOnPrimary: false,
      message: 'primary unreachable: connect ECONNREFUSED 127.0.0.1:1',
    });
    expect(describeFailure('plain')).toMatchObject({ failureType: 'sync', message: 'plain' });
  });
});
