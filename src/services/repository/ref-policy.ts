import type { Db } from '../../db/connection.js';
import { allProtectedBranchRows, allProtectedTagRows } from '../../db/tables/protected-refs.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { isBlankSha } from '../../git/object-names.js';
import { can, protectedRefLevels } from '../permissions.js';
import type { Actor } from '../users/authentication.js';

/**
 * GitLab's refusals of a ref change (Gitlab::Checks::ChangeAccess, 10.x wording with "maintainer"
 * for "master"), for pushes over git and for the API's ref writes alike.
 */
export const REF_MESSAGES = {
  deleteDefaultBranch: 'The default branch of a project cannot be deleted.',
  forcePushProtectedBranch: 'You are not allowed to force push code to a protected branch on this project.',
  nonMaintainerDeleteProtectedBranch:
    'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  nonWebDeleteProtectedBranch: 'You can only delete protected branches using the web interface.',
  pushProtectedBranch: 'You are not allowed to push code to protected branches on this project.',
  changeExistingTags: 'You are not allowed to change existing tags on this project.',
  updateProtectedTag: 'Protected tags cannot be updated.',
  deleteProtectedTag: 'Protected tags cannot be deleted.',
  createProtectedTag: 'You are not allowed to create this tag as it is protected.',
} as const;

/**
 * Whether a protected branch or tag name (GitLab's ProtectedRef#matches?) covers `name`: equal,
 * or, with `*` wildcards, `*` standing for any run of characters (slashes included).
 */
export function matchesRefPattern(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 'su').test(name);
}

/** What one actor may do to the refs of one project: the protections, resolved for the actor. */
export interface RefPolicy {
  readonly defaultBranch: string;
  /** Maintainers (admin_project) may change and delete existing tags. */
  readonly maintainer: boolean;
  /** Whether the actor may push to this project at all (push_code): the Branch entity's can_push starts there. */
  readonly pushCode: boolean;
  readonly branches: readonly { readonly pattern: string; readonly push: boolean; readonly merge: boolean; readonly developersCanPush: boolean; readonly developersCanMerge: boolean }[];
  readonly tags: readonly { readonly pattern: string; readonly create: boolean }[];
}

/** The project's protections resolved for the actor: two queries (the rows) and one access-level read. */
export function refPolicyFor(db: Db, actor: Actor | null, project: ProjectRow): RefPolicy {
  const levels = protectedRefLevels(db, actor, project);
  return {
    defaultBranch: project.default_branch,
    maintainer: levels.maintainer,
    pushCode: can(db, actor, 'push_code', project),
    branches: allProtectedBranchRows(db, project.id).map((row) => ({
      pattern: row.name,
      push: levels.reaches(row.push_access_level),
      merge: levels.reaches(row.merge_access_level),
      developersCanPush: row.push_access_level === 30,
      developersCanMerge: row.merge_access_level === 30,
    })),
    tags: allProtectedTagRows(db, project.id).map((row) => ({ pattern: row.name, create: levels.reaches(row.create_access_level) })),
  };
}

/** How a branch shows in the Branch entity: protected, developers_can_push/merge, can_push (GitLab's entity, from the rows). */
export function branchProtection(policy: RefPolicy, name: string) {
  const matching = policy.branches.filter((rule) => matchesRefPattern(rule.pattern, name));
  return {
    protected: matching.length > 0,
    developersCanPush: matching.some((rule) => rule.developersCanPush),
    developersCanMerge: matching.some((rule) => rule.developersCanMerge),
    canPush: policy.pushCode && (matching.length === 0 || matching.some((rule) => rule.push)),
  };
}

/** Whether the actor may push to this branch (GitLab's UserAccess#can_push_to_branch?). */
export function canPushToBranch(policy: RefPolicy, name: string): boolean {
  return branchProtection(policy, name).canPush;
}

/**
 * Whether the actor may merge into this branch (GitLab's MergeRequest#can_be_merged_by?: may push
 * to it, or may merge to it): push access to an unprotected branch, else the push or merge level
 * of a protection that matches it.
 */
export function canMergeToBranch(policy: RefPolicy, name: string): boolean {
  const matching = policy.branches.filter((rule) => matchesRefPattern(rule.pattern, name));
  return policy.pushCode && (matching.length === 0 || matching.some((rule) => rule.push || rule.merge));
}

export const isTagProtected = (policy: RefPolicy, name: string): boolean => policy.tags.some((rule) => matchesRefPattern(rule.pattern, name));

export interface RefChange {
  readonly ref: string;
  readonly before: string;
  readonly after: string;
  /** A branch update whose new commit does not contain the old one. */
  readonly forced: boolean;
}

/**
 * Why the change is refused, in GitLab's words, or null when it may go ahead. `via: 'push'` is
 * git over HTTP, where protected branches are never deleted; `'web'` is the API (GitLab's
 * updated_from_web?), where maintainers may delete them. Keep in step with the pre-receive hook
 * in git/smart-http.ts, which applies the same rules to the policy refPolicyText writes.
 */
export function refChangeRefusal(policy: RefPolicy, change: RefChange, via: 'push' | 'web'): string | null {
  const deletion = isBlankSha(change.after);
  const creation = isBlankSha(change.before);
  if (change.ref.startsWith('refs/heads/')) {
    const name = change.ref.slice('refs/heads/'.length);
    if (deletion && name === policy.defaultBranch) return REF_MESSAGES.deleteDefaultBranch;
    const rules = policy.branches.filter((rule) => matchesRefPattern(rule.pattern, name));
    if (rules.length === 0) return null;
    if (change.forced && !deletion && !creation) return REF_MESSAGES.forcePushProtectedBranch;
    if (deletion) {
      if (!policy.maintainer) return REF_MESSAGES.nonMaintainerDeleteProtectedBranch;
      return via === 'web' ? null : REF_MESSAGES.nonWebDeleteProtectedBranch;
    }
    return rules.some((rule) => rule.push) ? null : REF_MESSAGES.pushProtectedBranch;
  }
  if (change.ref.startsWith('refs/tags/')) {
    const name = change.ref.slice('refs/tags/'.length);
    if (!creation && !policy.maintainer) return REF_MESSAGES.changeExistingTags;
    const rules = policy.tags.filter((rule) => matchesRefPattern(rule.pattern, name));
    if (rules.length === 0) return null;
    if (deletion) return REF_MESSAGES.deleteProtectedTag;
    if (!creation) return REF_MESSAGES.updateProtectedTag;
    return rules.some((rule) => rule.create) ? null : REF_MESSAGES.createProtectedTag;
  }
  return null;
}

/**
 * The policy as the pre-receive hook reads it (GEOFORGE_REF_POLICY): `default <branch>`,
 * `maintainer 0|1`, then `branch <push 0|1> <pattern>` and `tag <create 0|1> <pattern>` lines.
 * Ref names hold no whitespace or control character (git check-ref-format), so a line cannot be
 * split or forged by a name, and `*` is the only glob character a name can carry.
 */
export function refPolicyText(policy: RefPolicy): string {
  const flag = (value: boolean) => (value ? '1' : '0');
  return [
    `default ${policy.defaultBranch}`,
    `maintainer ${flag(policy.maintainer)}`,
    ...policy.branches.map((rule) => `branch ${flag(rule.push)} ${rule.pattern}`),
    ...policy.tags.map((rule) => `tag ${flag(rule.create)} ${rule.pattern}`),
  ].join('\n');
}
