import { badRequest } from '../../errors.js';
import { VISIBILITY, VISIBILITY_NAMES } from '../../db/levels.js';
import { SNIPPET_FILE_ACTIONS, type SnippetFileAction } from '../../services/snippets/snippet-actions.js';
import { paramsGuard, valueGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf } from '../pagination.js';
import { datetime, oneOf, required, requireAtLeastOne, str, type Reader } from '../params.js';

/** The items of an array of hashes (`files[]`): a JSON array, or the `files[0][key]` / `files[][key]` form fields a form body parses into. */
function hashItems(raw: unknown, name: string): Record<string, unknown>[] {
  const items = Array.isArray(raw) ? raw : typeof raw === 'object' && raw !== null ? Object.values(raw) : null;
  if (!items || !items.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))) throw badRequest(`${name} is invalid`);
  return items as Record<string, unknown>[];
}

/** One string field of an item, named as Grape names it (`files[0][file_path]`). */
function itemText(item: Record<string, unknown>, name: string, index: number, key: string, needed: boolean): string | undefined {
  const label = `${name}[${index}][${key}]`;
  const value = str()(item[key], label);
  if (needed && (value === undefined || value === '')) throw badRequest(`${label} ${value === undefined ? 'is missing' : 'is empty'}`);
  return value;
}

/** `files[]` of a create: each a file_path and a content, neither blank. */
const createFiles: Reader<{ file_path: string; content: string }[] | undefined> = (raw, name) => {
  if (raw === undefined || raw === null) return undefined;
  const items = hashItems(raw, name);
  if (!items.length) throw badRequest(`${name} is empty`);
  return items.map((item, index) => ({ file_path: itemText(item, name, index, 'file_path', true)!, content: itemText(item, name, index, 'content', true)! }));
};

/** `files[]` of an update: an action each, with its paths and content as the action needs (checked by the service). */
const updateFiles: Reader<SnippetFileAction[] | undefined> = (raw, name) => {
  if (raw === undefined || raw === null) return undefined;
  const items = hashItems(raw, name);
  if (!items.length) throw badRequest(`${name} is empty`);
  return items.map((item, index) => {
    const action = itemText(item, name, index, 'action', true)!;
    if (!(SNIPPET_FILE_ACTIONS as readonly string[]).includes(action)) throw badRequest(`${name}[${index}][action] does not have a valid value`);
    const out: { -readonly [K in keyof SnippetFileAction]: SnippetFileAction[K] } = { action: action as SnippetFileAction['action'] };
    for (const key of ['file_path', 'previous_path', 'content'] as const) {
      const value = itemText(item, name, index, key, false);
      if (value !== undefined) out[key] = value;
    }
    return out;
  });
};

const visibility = oneOf(VISIBILITY_NAMES);
const mutuallyExclusive = (values: Record<string, unknown>, names: readonly string[]) => {
  if (names.filter((name) => values[name] !== undefined).length > 1) throw badRequest(`${names.join(', ')} are mutually exclusive`);
};

/** The files of a create: `files`, or the legacy `content` with its `file_name` (Grape's exactly_one_of and given). */
function createdFiles(params: { files?: { file_path: string; content: string }[]; content?: string; file_name?: string }) {
  mutuallyExclusive(params, ['files', 'content']);
  if (params.files) return params.files;
  if (params.content === undefined || params.content === '') throw badRequest('files, content are missing, exactly one parameter must be provided');
  if (params.file_name === undefined) throw badRequest('file_name is missing');
  return [{ file_path: params.file_name, content: params.content }];
}

const CREATE_SCHEMA = { title: required(str()), description: str(), files: createFiles, content: str(), file_name: str() };

/** POST /snippets: `visibility` defaults to internal. */
export const personalSnippetCreateParams = paramsGuard('personalSnippetCreateParams', { ...CREATE_SCHEMA, visibility }, (params) => ({
  title: params.title,
  description: params.description,
  visibility_level: VISIBILITY[params.visibility ?? 'internal'],
  files: createdFiles(params),
}));

/** POST /projects/:id/snippets: `visibility` is required. */
export const projectSnippetCreateParams = paramsGuard('projectSnippetCreateParams', { ...CREATE_SCHEMA, visibility: required(visibility) }, (params) => ({
  title: params.title,
  description: params.description,
  visibility_level: VISIBILITY[params.visibility],
  files: createdFiles(params),
}));

/** PUT: at least one field; `files` excludes the legacy `content` and `file_name`. */
export const snippetUpdateParams = paramsGuard(
  'snippetUpdateParams',
  { title: str(), description: str(), visibility, files: updateFiles, content: str(), file_name: str() },
  (params) => {
    mutuallyExclusive(params, ['files', 'content']);
    mutuallyExclusive(params, ['files', 'file_name']);
    requireAtLeastOne(params, ['content', 'description', 'files', 'file_name', 'title', 'visibility']);
    if (params.title === '') throw badRequest('title is empty');
    if (params.content === '') throw badRequest('content is empty');
    return {
      title: params.title,
      description: params.description,
      visibility_level: params.visibility === undefined ? undefined : VISIBILITY[params.visibility],
      files: params.files,
      content: params.content,
      file_name: params.file_name,
    };
  },
);

/** The lists' `created_after`, `created_before` and page. */
export const snippetListParams = paramsGuard('snippetListParams', { created_after: datetime(), created_before: datetime(), ...PAGE_PARAMS }, (params) => ({
  createdAfter: params.created_after,
  createdBefore: params.created_before,
  page: pageOf(params),
}));

/** The `:ref` and `:file_path` of a file's raw read (the path comes URL-encoded, decoded by the router). */
export const snippetFileRef = valueGuard('snippetFileRef', (_ctx, req) => ({ ref: String(req.params.ref), filePath: String(req.params.file_path) }));
