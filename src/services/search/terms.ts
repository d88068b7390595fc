import type { SqlCondition } from '../permissions.js';

/** GitLab's MIN_CHARS_FOR_PARTIAL_MATCHING: shorter words match nothing on their own. */
const MIN_WORD = 3;

/** The words of a search: quoted phrases kept whole, then every other word of three characters or more. */
function searchWords(text: string): string[] {
  const phrases = [...text.matchAll(/"([^"]+)"/g)].map((match) => match[1]!.trim()).filter(Boolean);
  const rest = text.replace(/"[^"]+"/g, ' ').split(/\s+/).filter((word) => word.length >= MIN_WORD);
  return [...phrases, ...rest];
}

/**
 * GitLab's fuzzy search (Gitlab::SQL::Pattern) as a condition on the rows `alias` of `table`, through
 * its FTS5 index `search_<table>` (migration 0027): every word must appear, case-insensitively,
 * anywhere in one of the indexed columns. A search with no word long enough matches rows whose
 * `exactColumn` equals it (GitLab's exact match for short terms).
 */
export function textMatch(table: string, alias: string, exactColumn: string, text: string): SqlCondition {
  const words = searchWords(text.trim());
  if (!words.length) return { sql: `${alias}.${exactColumn} = @search_exact COLLATE NOCASE`, params: { search_exact: text.trim() } };
  // Each word an FTS5 string (quotes doubled), so no word is read as an operator or a column name.
  const match = words.map((word) => `"${word.replace(/"/g, '""')}"`).join(' ');
  return { sql: `${alias}.id IN (SELECT rowid FROM search_${table} WHERE search_${table} MATCH @search_match)`, params: { search_match: match } };
}
