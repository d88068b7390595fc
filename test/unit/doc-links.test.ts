import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every relative link of README.md and docs/ names a file that exists, and a `#fragment` one of its headings. */
const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** GitHub's heading anchors: lower case, punctuation but `-` and `_` dropped, spaces as `-`, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replaceAll(' ', '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The targets of the inline links of a markdown text, code blocks and code spans aside. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, (span) => (span.startsWith('`[') ? span : ''));
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

describe('the links of README.md and docs/', () => {
  it('finds the documents', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/routes.md', 'docs/geo.md', 'docs/configuration.md']));
  });

  for (const doc of DOCS) {
    it(`${doc}: every relative link resolves`, () => {
      const text = readFileSync(path.join(ROOT, doc), 'utf8');
      const broken = linksOf(text)
        .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
        .filter((target) => {
          const [file, fragment] = target.split('#') as [string, string | undefined];
          const resolved = file === '' ? path.join(ROOT, doc) : path.resolve(path.dirname(path.join(ROOT, doc)), decodeURIComponent(file));
          if (!resolved.startsWith(ROOT) || !existsSync(resolved)) return true;
          if (fragment === undefined || statSync(resolved).isDirectory()) return false;
          return !anchorsOf(readFileSync(resolved, 'utf8')).has(fragment);
        });
      expect(broken).toEqual([]);
    });
  }
});
