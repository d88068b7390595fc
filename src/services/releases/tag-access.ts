import { matchesRefPattern, type RefPolicy } from '../repository/ref-policy.js';

/**
 * GitLab's UserAccess#can_create_tag?: an unprotected tag, or one a matching protection lets the
 * actor create. Releases of a protected tag are created, edited and deleted only by those
 * (Releases::CreateService, ReleasePolicy's protected_tag rule).
 */
export function mayCreateTag(policy: RefPolicy, tag: string): boolean {
  const rules = policy.tags.filter((rule) => matchesRefPattern(rule.pattern, tag));
  return rules.length === 0 || rules.some((rule) => rule.create);
}

export const PROTECTED_TAG_REFUSAL = 'You are not allowed to create this tag as it is protected.';
