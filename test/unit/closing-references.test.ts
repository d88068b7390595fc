import { describe, expect, it } from 'vitest';
import { closingReferences } from '../../src/services/merge-requests/closing-issues.js';

/** GitLab's default issue closing pattern, as closes_issues reads titles, descriptions and commit messages. */
describe('closingReferences', () => {
  const refs = (text: string) => closingReferences(text, 'https://git.example.com');

  it('reads the keywords in any case, with or without a colon, and comma and `and` lists', () => {
    expect(refs('Fixes #1')).toEqual([{ path: null, iid: 1 }]);
    expect(refs('closes: #2, #3 and #4')).toEqual([
      { path: null, iid: 2 },
      { path: null, iid: 3 },
      { path: null, iid: 4 },
    ]);
    expect(refs('RESOLVED #5\nImplements issue #6')).toEqual([
      { path: null, iid: 5 },
      { path: null, iid: 6 },
    ]);
    expect(refs('closing #7 and fixing #8')).toEqual([
      { path: null, iid: 7 },
      { path: null, iid: 8 },
    ]);
  });

  it('reads references to other projects and issue URLs of this site only', () => {
    expect(refs('Fixes group/sub/project#9')).toEqual([{ path: 'group/sub/project', iid: 9 }]);
    expect(refs('Closes https://git.example.com/group/project/issues/10')).toEqual([{ path: 'group/project', iid: 10 }]);
    expect(refs('Closes https://elsewhere.example.com/group/project/issues/11')).toEqual([]);
  });

  it('ignores mentions without a closing keyword', () => {
    expect(refs('Relates to #12, see #13')).toEqual([]);
    expect(refs('prefix #14')).toEqual([]);
  });
});
