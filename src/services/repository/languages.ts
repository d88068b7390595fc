import path from 'node:path';
import type { ProjectRow } from '../../db/tables/projects.js';
import { blobSizes } from '../../git/blob-sizes.js';
import { repositoryOf } from '../../git/in-repository.js';
import { branchCommit } from '../../git/refs.js';
import type { SiteContext } from '../../site-context.js';

/**
 * File extensions (and a few file names) of the programming and markup languages, as GitHub's
 * linguist names them; prose and data (Markdown, text, JSON, YAML) do not count, as linguist
 * leaves them out of a repository's languages.
 */
const BY_EXTENSION: Record<string, string> = {
  '.c': 'C', '.h': 'C', '.cc': 'C++', '.cpp': 'C++', '.cxx': 'C++', '.hpp': 'C++', '.hh': 'C++', '.cs': 'C#', '.go': 'Go',
  '.java': 'Java', '.kt': 'Kotlin', '.kts': 'Kotlin', '.scala': 'Scala', '.groovy': 'Groovy', '.clj': 'Clojure',
  '.js': 'JavaScript', '.mjs': 'JavaScript', '.cjs': 'JavaScript', '.jsx': 'JavaScript', '.ts': 'TypeScript', '.tsx': 'TypeScript',
  '.coffee': 'CoffeeScript', '.vue': 'Vue', '.svelte': 'Svelte', '.py': 'Python', '.rb': 'Ruby', '.rake': 'Ruby', '.erb': 'HTML+ERB',
  '.haml': 'Haml', '.php': 'PHP', '.pl': 'Perl', '.pm': 'Perl', '.rs': 'Rust', '.swift': 'Swift', '.m': 'Objective-C',
  '.mm': 'Objective-C++', '.sh': 'Shell', '.bash': 'Shell', '.zsh': 'Shell', '.ps1': 'PowerShell', '.lua': 'Lua', '.r': 'R',
  '.ex': 'Elixir', '.exs': 'Elixir', '.erl': 'Erlang', '.hs': 'Haskell', '.ml': 'OCaml', '.fs': 'F#', '.dart': 'Dart',
  '.jl': 'Julia', '.zig': 'Zig', '.nim': 'Nim', '.sql': 'PLpgSQL', '.html': 'HTML', '.htm': 'HTML', '.css': 'CSS',
  '.scss': 'SCSS', '.sass': 'Sass', '.less': 'Less', '.tex': 'TeX', '.vim': 'Vim Script', '.el': 'Emacs Lisp', '.asm': 'Assembly',
  '.s': 'Assembly', '.f90': 'Fortran', '.pas': 'Pascal', '.tf': 'HCL', '.proto': 'Protocol Buffer', '.mk': 'Makefile',
};
const BY_NAME: Record<string, string> = { Makefile: 'Makefile', Dockerfile: 'Dockerfile', Rakefile: 'Ruby', Gemfile: 'Ruby', 'CMakeLists.txt': 'CMake' };
/** Vendored code is not the project's (linguist's vendor.yml, in short). */
const VENDORED = /(^|\/)(node_modules|vendor|third_party|bower_components)\//;

export const languageOf = (filePath: string): string | null => {
  if (VENDORED.test(filePath)) return null;
  const base = path.posix.basename(filePath);
  return BY_NAME[base] ?? BY_EXTENSION[path.posix.extname(base).toLowerCase()] ?? null;
};

/** Computed shares by repository and commit: a commit's tree never changes, so a cached answer is never stale. */
const cache = new Map<string, Record<string, number>>();
const CACHE_SIZE = 512;

/**
 * GET /projects/:id/languages: the languages of the default branch's files, each its share of the
 * bytes in percent with two decimals, largest first (GitLab's repository_languages, from linguist).
 * One `git ls-tree -r -l` per new head commit, nothing written (a secondary answers it too).
 */
export async function projectLanguages(ctx: SiteContext, project: ProjectRow): Promise<Record<string, number>> {
  const repository = repositoryOf(ctx, project);
  const head = await branchCommit(repository, project.default_branch);
  if (!head) return {};
  const key = `${repository}\0${head}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const totals = new Map<string, number>();
  for (const blob of await blobSizes(repository, head)) {
    const language = languageOf(blob.path);
    if (language) totals.set(language, (totals.get(language) ?? 0) + blob.size);
  }
  const sum = [...totals.values()].reduce((a, b) => a + b, 0);
  const shares: Record<string, number> = {};
  for (const [language, bytes] of [...totals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    if (sum > 0) shares[language] = Math.round((bytes / sum) * 10_000) / 100;
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, shares);
  return shares;
}
