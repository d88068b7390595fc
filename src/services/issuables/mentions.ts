/**
 * `@username` mentions in Markdown, as GitLab's user reference filter reads them: not inside code
 * (fenced blocks or inline spans), not inside a word or an email address, and a trailing dot ends
 * the sentence rather than the name.
 */
const FENCED_CODE = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm;
const INLINE_CODE = /`[^`\n]*`/g;
/** A path segment: a name that does not end in a dot. `@group/subgroup` names a group by its full path. */
const SEGMENT = '[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?';
const MENTION = new RegExp(`(?<![\\w@.\`-])@(${SEGMENT}(?:/${SEGMENT})*)`, 'g');

/** The usernames (or group full paths) a text mentions, in order of first mention, each once (compared case-insensitively). */
export function mentionedUsernames(text: string | null): string[] {
  if (!text || !text.includes('@')) return [];
  const prose = text.replace(FENCED_CODE, '').replace(INLINE_CODE, '');
  const seen = new Set<string>();
  const out: string[] = [];
  for (const match of prose.matchAll(MENTION)) {
    const name = match[1];
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push(name);
  }
  return out;
}

/** The mentions a text opens with (`@alice @bob please look`): GitLab's directly addressed users. */
const LEADING_MENTIONS = new RegExp(`^\\s*(?:@${SEGMENT}(?:/${SEGMENT})*[\\s,]*)+`);

/** The usernames a text opens with, each once; GitLab gives them `directly_addressed` todos instead of `mentioned`. */
export function directlyAddressedUsernames(text: string | null): string[] {
  if (!text) return [];
  const lead = LEADING_MENTIONS.exec(text);
  return lead ? mentionedUsernames(lead[0]) : [];
}
