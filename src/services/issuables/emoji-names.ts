import { createRequire } from 'node:module';

/** A shortcode file of emojibase-data: each emoji's hexcode to one shortcode or several. */
type ShortcodeFile = Record<string, string | string[]>;

const requireData = createRequire(import.meta.url);

/**
 * GitLab validates award names against its emoji set (gemojione, now JoyPixels: `thumbsup`,
 * `slight_smile`, `8ball`); emojibase-data ships that naming as its `joypixels` shortcodes, and
 * GitHub's (`+1`, `smiley`) beside it. Both are accepted; loaded once, on the first award.
 */
let names: ReadonlySet<string> | null = null;

function emojiNames(): ReadonlySet<string> {
  if (names) return names;
  const all = new Set<string>();
  for (const preset of ['joypixels', 'github']) {
    const file = requireData(`emojibase-data/en/shortcodes/${preset}.json`) as ShortcodeFile;
    for (const value of Object.values(file)) for (const name of Array.isArray(value) ? value : [value]) all.add(name);
  }
  names = all;
  return all;
}

/** GitLab stores `+1` and `-1` as `thumbsup` and `thumbsdown` (AwardEmoji#normalize_name), so votes count them. */
const ALIASES: Readonly<Record<string, string>> = { '+1': 'thumbsup', '-1': 'thumbsdown' };

/** The name an award is stored under, or null when it names no emoji. */
export function normalizeEmojiName(raw: string): string | null {
  const name = ALIASES[raw] ?? raw;
  return emojiNames().has(name) ? name : null;
}
