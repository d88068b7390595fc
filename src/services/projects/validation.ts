import type { Db } from '../../db/connection.js';
import { findNamespaceByPath, type NamespaceRow } from '../../db/tables/namespaces.js';
import { takenInNamespace } from '../../db/tables/projects.js';
import type { FieldErrors } from '../../errors.js';
import { visibilityName } from '../../db/levels.js';

/** GitLab's project name rule (Gitlab::Regex.project_name_regex). */
const PROJECT_NAME = /^[\p{L}\p{N}\u{00A9}-\u{1F9FF}_][\p{L}\p{N}\p{Pd}\u{00A9}-\u{1F9FF}_. ]*$/u;
/** GitLab's project path rule: letters, digits, '_', '-', '.', not starting with '-' nor ending in .git or .atom. */
const PROJECT_PATH = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;
/** Routes below a project that a project path would shadow (GitLab's PROJECT_WILDCARD_ROUTES). */
const RESERVED_PROJECT_PATHS = new Set([
  'badges', 'blame', 'blob', 'builds', 'commits', 'create', 'create_dir', 'edit', 'files', 'find_file', 'new', 'preview', 'raw', 'refs', 'tree', 'update', 'wikis',
]);

/** The state of a project a write would leave behind, checked as a whole. */
export interface ProjectDraft {
  /** The project's own id on update; null for a new project. */
  id: number | null;
  namespace: NamespaceRow;
  name: string;
  path: string;
  visibility_level: number;
  default_branch: string;
  approvals_before_merge: number;
  repository_storage: string;
}

/** The storages this site has: one, under DATA_DIR/repositories. */
const REPOSITORY_STORAGES = ['default'];

/**
 * `path` from `name` when only a name is given (SPEC: create parameters): ActiveSupport's
 * parameterize, lowercased, with runs of other characters turned into single dashes.
 */
export function pathFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '');
}

/** Whether git accepts `branch` as a branch name (the common rules of git check-ref-format). */
function isValidBranchName(branch: string): boolean {
  if (!branch || branch.length > 255 || branch === '@' || branch.startsWith('-') || branch.startsWith('/') || branch.endsWith('/')) return false;
  if (branch.endsWith('.') || branch.endsWith('.lock') || branch.includes('..') || branch.includes('@{') || branch.includes('//')) return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(branch)) return false;
  return branch.split('/').every((part) => !part.startsWith('.'));
}

/** GitLab's model validations of a project, as field errors (empty when valid). */
export function validateProject(db: Db, draft: ProjectDraft): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, text: string) => (errors[field] ??= []).push(text);

  if (!draft.name.trim()) add('name', "can't be blank");
  else if (!PROJECT_NAME.test(draft.name)) {
    add('name', "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.");
  }
  if (draft.name.length > 255) add('name', 'is too long (maximum is 255 characters)');

  if (!draft.path) add('path', "can't be blank");
  else {
    if (!PROJECT_PATH.test(draft.path) || /\.(git|atom)$/i.test(draft.path)) {
      add('path', "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'");
    }
    if (RESERVED_PROJECT_PATHS.has(draft.path.toLowerCase())) add('path', `${draft.path} is a reserved name`);
    if (draft.path.length > 255) add('path', 'is too long (maximum is 255 characters)');
  }

  const taken = takenInNamespace(db, draft.namespace.id, draft.name, draft.path, draft.id);
  if (taken.name) add('name', 'has already been taken');
  if (taken.path || (draft.path && shadowsSubgroup(db, draft.namespace, draft.path))) add('path', 'has already been taken');

  if (draft.namespace.kind === 'group' && draft.visibility_level > draft.namespace.visibility_level) {
    add('visibility_level', `${visibilityName(draft.visibility_level)} is not allowed in a ${visibilityName(draft.namespace.visibility_level)} group.`);
  }
  if (!isValidBranchName(draft.default_branch)) add('default_branch', 'is invalid');
  if (!REPOSITORY_STORAGES.includes(draft.repository_storage)) add('repository_storage', 'is not included in the list');
  if (draft.approvals_before_merge < 0) add('approvals_before_merge', 'must be greater than or equal to 0');
  return errors;
}

/** A subgroup with the same full path would make the route ambiguous, as GitLab's unique routes forbid. */
export function shadowsSubgroup(db: Db, namespace: NamespaceRow, path: string): boolean {
  return findNamespaceByPath(db, `${namespace.full_path}/${path}`) !== undefined;
}
