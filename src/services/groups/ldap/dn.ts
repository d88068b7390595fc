/**
 * A DN in a form two spellings of one entry share: attribute types and values lower-cased (LDAP
 * compares both without regard to case for the attributes DNs use: uid, cn, ou, dc) and the
 * spaces around `,`, `+` and `=` dropped, so `uid=Alice, ou=People,dc=example,dc=org` matches the
 * `member` value the server returns. Escaped characters (`\,`, `\ `) stay part of their value.
 */
export function normalizeDn(dn: string): string {
  let out = '';
  let part = '';
  for (let i = 0; i < dn.length; i++) {
    const char = dn[i];
    if (char === '\\' && i + 1 < dn.length) {
      part += char + dn[++i];
    } else if (char === ',' || char === ';' || char === '+' || char === '=') {
      out += trimUnescaped(part) + (char === ';' ? ',' : char);
      part = '';
    } else {
      part += char;
    }
  }
  return (out + trimUnescaped(part)).toLowerCase();
}

/** Trims spaces, keeping a trailing space that is escaped (`\ `). */
function trimUnescaped(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === ' ' && text[end - 2] !== '\\') end--;
  return text.slice(0, end).trimStart();
}
