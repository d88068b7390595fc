import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The code map of docs/architecture.md names every folder under src/, and everything it names exists. */
const ROOT = path.resolve(import.meta.dirname, '../..');

function codeMap(): string {
  const doc = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const start = doc.indexOf('\n## Code map\n');
  expect(start, 'docs/architecture.md has a "## Code map" section').toBeGreaterThan(0);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

describe('the code map in docs/architecture.md', () => {
  const map = codeMap();
  const named = [...new Set([...map.matchAll(/\bsrc\/[\w./-]*[\w/]/g)].map((match) => match[0]))];

  it('names only paths that exist', () => {
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((name) => !existsSync(path.join(ROOT, name)))).toEqual([]);
  });

  it('names every folder under src/', () => {
    const folders = (readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join('/')}/`);
    expect(folders.length).toBeGreaterThan(20);
    expect(folders.filter((folder) => !named.includes(folder) && !named.includes(folder.slice(0, -1)))).toEqual([]);
  });
});
