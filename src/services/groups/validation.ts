import type { Db } from '../../db/connection.js';
import { groupNameTaken, projectPathTaken, widestChildVisibility } from '../../db/tables/groups.js';
import { findNamespaceByPath, type NamespaceRow } from '../../db/tables/namespaces.js';
import type { FieldErrors } from '../../errors.js';
import { visibilityName } from '../../db/levels.js';
import { namespacePathErrors } from '../users/validation.js';

/** GitLab's namespace name rule: letters, digits, emoji, '_', '.', '-', '(', ')' and spaces, not starting with a punctuation mark. */
const GROUP_NAME = /^[\p{L}\p{N}\u{00A9}-\u{1F9FF}_][\p{L}\p{N}\p{Pd}\u{00A9}-\u{1F9FF}_(). ]*$/u;

/** The state of a group a write would leave behind, checked as a whole. */
export interface GroupDraft {
  /** The group's own id once it exists (an update); null for a new group. */
  id: number | null;
  name: string;
  path: string;
  visibility_level: number;
  parent: NamespaceRow | null;
}

/** GitLab's model validations of a group, as field errors (empty when valid). */
export function validateGroup(db: Db, draft: GroupDraft): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, text: string) => (errors[field] ??= []).push(text);

  if (!draft.name.trim()) add('name', "can't be blank");
  else if (!GROUP_NAME.test(draft.name)) {
    add('name', "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.");
  }
  if (draft.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  // GitLab scopes a group name by its parent.
  if (groupNameTaken(db, draft.parent?.id ?? null, draft.name, draft.id)) add('name', 'has already been taken');

  if (!draft.path) add('path', "can't be blank");
  else for (const text of namespacePathErrors(draft.path, draft.parent === null)) add('path', text);
  if (draft.path && !errors.path && pathTaken(db, draft)) add('path', 'has already been taken');

  for (const text of visibilityErrors(db, draft)) add('visibility_level', text);
  return errors;
}

/**
 * A path is unique within the parent. Top-level paths share one space with usernames, since the
 * full_path index holds both; a subgroup may not shadow a project of its parent either.
 */
function pathTaken(db: Db, draft: GroupDraft): boolean {
  const fullPath = draft.parent ? `${draft.parent.full_path}/${draft.path}` : draft.path;
  const holder = findNamespaceByPath(db, fullPath);
  if (holder && holder.id !== draft.id) return true;
  return draft.parent !== null && projectPathTaken(db, draft.parent.id, draft.path);
}

/** Not more open than the parent, not more private than any subgroup or project inside (GITLAB-NOTES 2.1). */
function visibilityErrors(db: Db, draft: GroupDraft): string[] {
  const name = visibilityName(draft.visibility_level);
  const errors: string[] = [];
  if (draft.parent && draft.visibility_level > draft.parent.visibility_level) {
    errors.push(`${name} is not allowed since the parent group has a ${visibilityName(draft.parent.visibility_level)} visibility.`);
  }
  if (draft.id !== null) {
    const widest = widestChildVisibility(db, draft.id);
    if (widest.subgroups !== null && widest.subgroups > draft.visibility_level) {
      errors.push(`${name} is not allowed since there are sub-groups with higher visibility.`);
    }
    if (widest.projects !== null && widest.projects > draft.visibility_level) {
      errors.push(`${name} is not allowed since this group contains projects with higher visibility.`);
    }
  }
  return errors;
}

/** GitLab 10.x reports a failed group create as a Ruby hash inside the message (GITLAB-NOTES 2.1). */
export function rubyHash(fields: FieldErrors): string {
  const quote = (text: string) => `"${text.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
  return `{${Object.entries(fields)
    .map(([field, texts]) => `:${field}=>[${texts.map(quote).join(', ')}]`)
    .join(', ')}}`;
}
