import { createRequire } from 'node:module';

/** A shortcode file of emojibase-data: each emoji's hexcode to one shortcode or several. */
type ShortcodeFile = Record<string, string | string[]>;

const requireData = createRequire(import.meta.url);

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);

/** Shortcode -> the emoji itself, from the same emojibase-data presets award emoji names come from; loaded on first use. */
let characters: ReadonlyMap<string, string> | null = null;

function emojiCharacters(): ReadonlyMap<string, string> {
  if (characters) return characters;
  const map = new Map<string, string>();
  for (const preset of ['joypixels', 'github']) {
    const file = requireData(`emojibase-data/en/shortcodes/${preset}.json`) as ShortcodeFile;
    for (const [hexcode, value] of Object.entries(file)) {
      const character = String.fromCodePoint(...hexcode.split('-').map((part) => parseInt(part, 16)));
      for (const name of Array.isArray(value) ? value : [value]) if (!map.has(name)) map.set(name, character);
    }
  }
  characters = map;
  return map;
}

/**
 * A short text as GitLab's emoji pipeline renders it (UserStatus#message_html): HTML escaped,
 * each `:name:` of a known emoji turned into a `gl-emoji` element; no other markdown.
 */
export function emojiHtml(text: string): string {
  const known = emojiCharacters();
  return escapeHtml(text).replace(/:([\w+-]+):/g, (match, name: string) => {
    const character = known.get(name);
    return character ? `<gl-emoji title="${name}" data-name="${name}">${character}</gl-emoji>` : match;
  });
}
