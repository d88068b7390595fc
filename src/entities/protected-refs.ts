/** Protected branches and tags (GitLab ENT ProtectedBranch, ProtectedTag, ProtectedRefAccess). */
import type { ProtectedBranchRow, ProtectedTagRow } from '../db/tables/protected-refs.js';

const DESCRIPTIONS: Record<number, string> = { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers', 60: 'Admins' };

/** One access level as GitLab lists it (`push_access_levels` and friends are arrays of these). */
const accessLevel = (level: number) => [{ access_level: level, access_level_description: DESCRIPTIONS[level] ?? String(level) }];

export function protectedBranchEntity(row: ProtectedBranchRow) {
  return {
    id: row.id,
    name: row.name,
    push_access_levels: accessLevel(row.push_access_level),
    merge_access_levels: accessLevel(row.merge_access_level),
    unprotect_access_levels: accessLevel(row.unprotect_access_level),
    allow_force_push: false,
    code_owner_approval_required: false,
  };
}

export function protectedTagEntity(row: ProtectedTagRow) {
  return { name: row.name, create_access_levels: accessLevel(row.create_access_level) };
}
