import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { notFound } from '../../errors.js';

/**
 * License templates (GET /templates/licenses) from the `spdx-license-list` package: texts are never
 * copied into this repository. GitLab serves choosealicense.com's through Licensee; keys here are
 * SPDX ids in lower case (`mit`, `apache-2.0`, `gpl-3.0-only`), and SPDX has no descriptions or
 * permission lists, so those stay empty.
 */
export interface LicenseTemplate {
  readonly key: string;
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly popular: boolean;
  readonly text: string;
}

/** Licensee's featured licenses, GitLab's `popular`: MIT, Apache 2.0, GPL 3.0. */
const POPULAR = new Set(['mit', 'apache-2.0', 'gpl-3.0-only']);

// Resolved once at load: a request never resolves a module path.
const SPDX_FILE = createRequire(import.meta.url).resolve('spdx-license-list/spdx-full.json');

let loading: Promise<readonly LicenseTemplate[]> | null = null;

/** Every license, sorted by key, read once (asynchronously) from the package's JSON. */
export function licenseTemplates(): Promise<readonly LicenseTemplate[]> {
  loading ??= readFile(SPDX_FILE, 'utf8').then((text) => {
    const raw = JSON.parse(text) as Record<string, { name: string; url: string; licenseText: string }>;
    return Object.entries(raw)
      .map(([id, entry]) => ({ key: id.toLowerCase(), id, name: entry.name, url: entry.url, popular: POPULAR.has(id.toLowerCase()), text: entry.licenseText }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  });
  return loading;
}

/** One license by key, in any case; 404 `License` otherwise. */
export async function findLicenseTemplate(key: string): Promise<LicenseTemplate> {
  const wanted = key.toLowerCase();
  const found = (await licenseTemplates()).find((template) => template.key === wanted);
  if (!found) throw notFound('License');
  return found;
}

// GitLab's placeholders (templates.rb), widened to SPDX's spellings: `<copyright holders>`, `<owner>`, `<program>`.
const YEAR = /[<{[](?:year|yyyy)[>}\]]/gi;
const PROJECT = /[<{[](?:project|program|description|one\sline\s.+\swhat\sit\sdoes\.)[>}\]]/gi;
const FULLNAME = /[<{[](?:fullname|owner|copyright\sholders?|name\sof\s(?:author|copyright\sowner))[>}\]]/gi;

/** The text with GitLab's placeholders filled: the year, the project's name, the holder's full name. */
export function fillLicenseText(text: string, values: { year: number; project?: string; fullname?: string }): string {
  let out = text.replace(YEAR, String(values.year));
  if (values.project) out = out.replace(PROJECT, () => values.project!);
  if (values.fullname) out = out.replace(FULLNAME, () => values.fullname!);
  return out;
}
