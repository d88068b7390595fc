import type { ReleaseLinkType, ReleaseLinkValues } from '../../db/tables/release-links.js';
import { invalid, type FieldErrors } from '../../errors.js';

/** An asset link as a request gives it (`direct_asset_path`, or its deprecated name `filepath`, already merged). */
export interface LinkInput {
  readonly name: string;
  readonly url: string;
  readonly filepath?: string | null;
  readonly linkType?: ReleaseLinkType;
}

/** GitLab's Releases::Link::FILEPATH_REGEX: a rooted path of word characters, dots, dashes and slashes, no `//`, ending alphanumeric. */
const FILEPATH = /^\/[^/](?!.*\/\/)[-.\w/]+[\da-zA-Z]+$/;
const FILEPATH_MAX = 128;
const URL_SCHEMES = ['http:', 'https:', 'ftp:'];

/** A link's stored values, or 400 with GitLab's validation messages; a path without its leading slash gets one. */
export function linkValues(input: LinkInput): ReleaseLinkValues {
  const errors: FieldErrors = {};
  const name = input.name.trim();
  if (!name) errors.name = ["can't be blank"];
  const url = input.url.trim();
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    errors.url = ['must be a valid URL'];
  }
  if (parsed && !URL_SCHEMES.includes(parsed.protocol)) errors.url = ['is blocked: Only allowed schemes are http, https, ftp'];
  let filepath = input.filepath ? input.filepath.trim() : null;
  if (filepath && !filepath.startsWith('/')) filepath = `/${filepath}`;
  if (filepath && filepath.length > FILEPATH_MAX) errors.filepath = [`is too long (maximum is ${FILEPATH_MAX} characters)`];
  else if (filepath && !FILEPATH.test(filepath)) errors.filepath = ['is in an invalid format'];
  if (Object.keys(errors).length) throw invalid(errors);
  return { name, url, filepath: filepath || null, link_type: input.linkType ?? 'other' };
}

/** The links of one new release must differ in name, url and filepath, as GitLab's uniqueness validations require. */
export function assertDistinctLinks(links: readonly ReleaseLinkValues[]): void {
  for (const field of ['name', 'url', 'filepath'] as const) {
    const values = links.map((link) => link[field]).filter((value) => value !== null);
    if (new Set(values).size !== values.length) throw invalid({ [`links.${field}`]: ['has already been taken'] });
  }
}
