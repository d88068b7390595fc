import { describe, expect, it } from 'vitest';
import { findDiffLine } from '../../src/git/diff.js';

/** The hunks of a file where line 2 was replaced and a fourth line added (`one two three` to `one 2 three four`). */
const HUNKS = '@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n';

describe('findDiffLine: the line of a diff a commit comment names, as GitLab numbers it', () => {
  it('finds an added line by its number in the new file', () => {
    expect(findDiffLine(HUNKS, 2, 'new')).toEqual({ type: 'new', oldPos: 3, newPos: 2 });
    expect(findDiffLine(HUNKS, 4, 'new')).toEqual({ type: 'new', oldPos: 4, newPos: 4 });
  });

  it('finds a removed line by the new file counter at its place, and keeps its old number', () => {
    expect(findDiffLine(HUNKS, 2, 'old')).toEqual({ type: 'old', oldPos: 2, newPos: 2 });
  });

  it('finds nothing on a context line, on the other side, or past the hunks', () => {
    expect(findDiffLine(HUNKS, 1, 'new')).toBeNull();
    expect(findDiffLine(HUNKS, 3, 'old')).toBeNull();
    expect(findDiffLine(HUNKS, 9, 'new')).toBeNull();
    expect(findDiffLine('', 1, 'new')).toBeNull();
  });

  it('restarts its counters at each hunk header', () => {
    const twoHunks = '@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -10,2 +10,3 @@\n j\n+k\n l\n';
    expect(findDiffLine(twoHunks, 11, 'new')).toEqual({ type: 'new', oldPos: 11, newPos: 11 });
    expect(findDiffLine(twoHunks, 1, 'old')).toEqual({ type: 'old', oldPos: 1, newPos: 1 });
  });
});
