import { describe, expect, it } from 'vitest';
import { normalizeDn } from '../../src/services/groups/ldap/dn.js';

describe('normalizeDn', () => {
  it('ignores case and the spaces around separators', () => {
    expect(normalizeDn('UID=Alice, ou=People ,dc = example;dc=org')).toBe('uid=alice,ou=people,dc=example,dc=org');
    expect(normalizeDn('cn=a + sn=b,dc=x')).toBe('cn=a+sn=b,dc=x');
  });

  it('keeps escaped separators and escaped trailing spaces inside their value', () => {
    expect(normalizeDn('cn=Doe\\, John ,dc=x')).toBe('cn=doe\\, john,dc=x');
    expect(normalizeDn('cn=pad\\ ,dc=x')).toBe('cn=pad\\ ,dc=x');
  });
});
