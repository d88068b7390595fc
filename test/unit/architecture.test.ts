import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/ and the arrows allowed between them (README, "Code map"). It reads the
 * import statements of every file under src/ and fails on an import across a forbidden edge or on
 * a runtime import cycle, naming the file and the import.
 */

interface Import {
  readonly from: string;
  /** The imported file, relative to the repository (src/...). */
  readonly to: string;
  readonly specifier: string;
  /** `import type` (or only `type` names): erased at build, so no runtime edge. */
  readonly typeOnly: boolean;
}

const SRC = path.resolve(import.meta.dirname, '../../src');

/** The layer of a file: its first folder under src/, or `root` for src/*.ts (cli, config, server, errors...). */
export function layerOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : 'root';
}

/**
 * Forbidden arrows: files of the `from` layers may not import files of the `to` layers (or the
 * `to` files named by path), `except` the files listed; `runtimeOnly` rules let type-only imports by.
 */
interface Rule {
  readonly from: readonly string[];
  readonly to: readonly string[];
  readonly except?: readonly string[];
  readonly runtimeOnly?: true;
  readonly why: string;
}

const RULES: readonly Rule[] = [
  { from: ['services', 'geo', 'db', 'entities', 'storage', 'git', 'jobs', 'observability'], to: ['api'], why: 'only the HTTP layer knows HTTP' },
  { from: ['db'], to: ['services', 'geo', 'git', 'jobs', 'observability', 'entities', 'storage'], why: 'db is the bottom layer: rows and statements' },
  { from: ['entities'], to: ['services', 'jobs', 'git', 'geo'], except: ['src/git/object-names.ts'], runtimeOnly: true, why: 'entities are pure row -> JSON views: they may name types only' },
  { from: ['entities'], to: ['db'], except: ['src/db/levels.ts'], runtimeOnly: true, why: 'entities never query: they may name row types and read the level constants' },
  { from: ['storage'], to: ['services', 'geo', 'db', 'git', 'entities', 'jobs'], why: 'storage knows where blobs live and nothing above it' },
  { from: ['git'], to: ['services', 'geo', 'entities', 'jobs'], why: 'git is infrastructure under the services' },
  { from: ['services'], to: ['jobs'], why: 'the schedule calls services, never the other way' },
];

/** Every broken rule among the imports, as `file imports 'specifier' (from -> to: why)`. */
export function forbiddenImports(imports: readonly Import[]): string[] {
  const out: string[] = [];
  for (const edge of imports) {
    const from = layerOf(edge.from);
    const to = layerOf(edge.to);
    const broken = RULES.find((rule) => rule.from.includes(from) && rule.to.includes(to) && !rule.except?.includes(edge.to) && !(rule.runtimeOnly && edge.typeOnly));
    if (broken) out.push(`${edge.from} imports '${edge.specifier}' (${from} -> ${to}: ${broken.why})`);
  }
  return out;
}

/** The runtime import cycles (strongly connected components of more than one file, or a file importing itself). */
export function runtimeCycles(imports: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of imports) if (!edge.typeOnly) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  for (const root of next.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; i: number }[] = [{ node: root, i: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const targets = next.get(frame.node) ?? [];
      if (frame.i < targets.length) {
        const target = targets[frame.i++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, i: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || targets.includes(frame.node)) cycles.push(component.sort());
    }
  }
  return cycles;
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'(\.[^']+)'|^\s*import\s+'(\.[^']+)'/gm;

/** The relative imports of one source text (file is its path relative to the repository). */
export function importsOf(file: string, text: string): Import[] {
  const out: Import[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[4] ?? match[5]!;
    const names = match[3] ?? '';
    // `import { type A, type B }` is erased like `import type`.
    const onlyTypes = /^\{[^}]*\}$/.test(names.trim()) && names.replace(/[{}]/g, '').split(',').every((name) => !name.trim() || /^type\s/.test(name.trim()));
    const to = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
    out.push({ from: file, to, specifier, typeOnly: !!match[2] || onlyTypes });
  }
  return out;
}

function sourceImports(): Import[] {
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
  return files.flatMap((file) => importsOf(`src/${file.split(path.sep).join('/')}`, readFileSync(path.join(SRC, file), 'utf8')));
}

describe('the import rules', () => {
  it('reads runtime and type-only imports and resolves them to files', () => {
    const text = ["import { a } from '../db/connection.js';", "import type { B } from './b.js';", "import { type C, type D } from '../c.js';", "export { e } from './e.js';", "import './side-effect.js';"].join('\n');
    expect(importsOf('src/services/x.ts', text)).toEqual([
      { from: 'src/services/x.ts', to: 'src/db/connection.ts', specifier: '../db/connection.js', typeOnly: false },
      { from: 'src/services/x.ts', to: 'src/services/b.ts', specifier: './b.js', typeOnly: true },
      { from: 'src/services/x.ts', to: 'src/c.ts', specifier: '../c.js', typeOnly: true },
      { from: 'src/services/x.ts', to: 'src/services/e.ts', specifier: './e.js', typeOnly: false },
      { from: 'src/services/x.ts', to: 'src/services/side-effect.ts', specifier: './side-effect.js', typeOnly: false },
    ]);
  });

  it('names a forbidden edge with the file and the import, and lets entities name row types and read the levels', () => {
    const graph = [
      ...importsOf('src/services/users/users.ts', "import { sendJson } from '../../api/respond.js';"),
      ...importsOf('src/entities/users.ts', "import type { UserRow } from '../db/tables/users.js';"),
      ...importsOf('src/entities/groups.ts', "import { visibilityName } from '../db/levels.js';"),
      ...importsOf('src/entities/projects.ts', "import { findProjectById } from '../db/tables/projects.js';"),
      ...importsOf('src/api/users/users.ts', "import { getUser } from '../../services/users/users.js';"),
    ];
    expect(forbiddenImports(graph)).toEqual([
      "src/services/users/users.ts imports '../../api/respond.js' (services -> api: only the HTTP layer knows HTTP)",
      "src/entities/projects.ts imports '../db/tables/projects.js' (entities -> db: entities never query: they may name row types and read the level constants)",
    ]);
  });

  it('finds runtime cycles and ignores cycles through type-only imports', () => {
    const graph = [
      ...importsOf('src/a.ts', "import { b } from './b.js';"),
      ...importsOf('src/b.ts', "import { c } from './c.js';"),
      ...importsOf('src/c.ts', "import { a } from './a.js';"),
      ...importsOf('src/d.ts', "import { e } from './e.js';"),
      ...importsOf('src/e.ts', "import type { D } from './d.js';"),
    ];
    expect(runtimeCycles(graph)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
  });
});

describe('src/', () => {
  const imports = sourceImports();

  it('reads the whole tree', () => {
    expect(imports.length).toBeGreaterThan(500);
  });

  it('has no import across a forbidden edge', () => {
    expect(forbiddenImports(imports)).toEqual([]);
  });

  it('has no runtime import cycle', () => {
    expect(runtimeCycles(imports).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });
});
