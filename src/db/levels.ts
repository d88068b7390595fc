/**
 * The numbers the `access_level` and `visibility_level` columns hold, as GitLab stores them; the
 * rules that read them live in services/permissions.ts.
 */

/** GitLab's access levels (GITLAB-NOTES 1.5); 40 is "maintainer" (named "master" in 10.x). */
export const ACCESS = { none: 0, guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
export type AccessLevel = (typeof ACCESS)[keyof typeof ACCESS];
/** GitLab's Gitlab::Access.all_values: the levels a member, a share or a `min_access_level` takes. */
export const ACCESS_LEVELS: readonly number[] = [ACCESS.guest, ACCESS.reporter, ACCESS.developer, ACCESS.maintainer, ACCESS.owner];

/** GitLab's visibility levels: private 0, internal 10, public 20. */
export const VISIBILITY = { private: 0, internal: 10, public: 20 } as const;
export type VisibilityName = keyof typeof VISIBILITY;
/** The visibility names a `visibility` parameter accepts. */
export const VISIBILITY_NAMES = Object.keys(VISIBILITY) as VisibilityName[];
export const visibilityName = (level: number): VisibilityName => (level >= 20 ? 'public' : level >= 10 ? 'internal' : 'private');
