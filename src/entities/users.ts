import { createHash } from 'node:crypto';
import type { IdentityRow, UserRow } from '../db/tables/users.js';
import { flag, isoTime } from './column-values.js';

export interface EntityContext {
  readonly externalUrl: string;
  /** The application setting gravatar_enabled: a user without an avatar shows their Gravatar. */
  readonly gravatarEnabled?: boolean;
}

/** The state clients see: an LDAP block shows as `blocked` (decision 11), a ban as `banned`. */
export const visibleState = (user: Pick<UserRow, 'state' | 'banned_at'>): 'active' | 'blocked' | 'banned' =>
  user.banned_at ? 'banned' : user.state === 'active' ? 'active' : 'blocked';

function avatarUrl(user: UserRow, ctx: EntityContext): string | null {
  if (user.avatar_path) return `${ctx.externalUrl}/uploads/-/system/user/avatar/${user.id}/${encodeURIComponent(user.avatar_path)}`;
  return ctx.gravatarEnabled ? gravatarUrl(user.email) : null;
}

/** Gravatar's URL for an email (its SHA-256, as GitLab 16+ sends), at GitLab's size and identicon fallback. */
function gravatarUrl(email: string): string {
  return `https://www.gravatar.com/avatar/${createHash('sha256').update(email.trim().toLowerCase()).digest('hex')}?s=80&d=identicon`;
}

/** UserBasic: the summary embedded everywhere and the non-admin list view. */
export function userBasic(user: UserRow, ctx: EntityContext) {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    state: visibleState(user),
    avatar_url: avatarUrl(user, ctx),
    web_url: `${ctx.externalUrl}/${user.username}`,
  };
}

/** User: the public single-user view. */
export function userDetails(user: UserRow, ctx: EntityContext) {
  // Each larger view extends the smaller one in place: no copy per view on the hottest reads.
  return Object.assign(userBasic(user, ctx), {
    created_at: isoTime(user.created_at),
    bio: user.bio || null,
    location: user.location || null,
    skype: user.skype,
    linkedin: user.linkedin,
    twitter: user.twitter,
    website_url: user.website_url,
    organization: user.organization,
    // GitLab 13.x+: the bot users of project and group access tokens.
    bot: user.user_type === 'project_bot',
  });
}

/** UserPublic: the user's own view (GET /user for non-admins, create and update responses). */
export function userPublic(user: UserRow, identities: readonly IdentityRow[], ctx: EntityContext) {
  return Object.assign(userDetails(user, ctx), {
    last_sign_in_at: isoTime(user.last_sign_in_at),
    confirmed_at: isoTime(user.confirmed_at),
    last_activity_on: user.last_activity_on,
    email: user.email,
    theme_id: user.theme_id,
    color_scheme_id: user.color_scheme_id,
    projects_limit: user.projects_limit,
    current_sign_in_at: isoTime(user.current_sign_in_at),
    identities: identities.map((identity) => ({ provider: identity.provider, extern_uid: identity.extern_uid })),
    can_create_group: flag(user.can_create_group),
    can_create_project: user.projects_limit > 0,
    two_factor_enabled: flag(user.two_factor_enabled),
    external: flag(user.external),
  });
}

/** UserWithAdmin: what admins see in lists and GET /user. */
export function userWithAdmin(user: UserRow, identities: readonly IdentityRow[], ctx: EntityContext) {
  return Object.assign(userPublic(user, identities, ctx), { is_admin: flag(user.admin) });
}

/** The single-user admin view adds the CI minutes limit (SPEC: Users). */
export function userAdminDetails(user: UserRow, identities: readonly IdentityRow[], ctx: EntityContext) {
  return Object.assign(userWithAdmin(user, identities, ctx), { shared_runners_minutes_limit: user.shared_runners_minutes_limit });
}

export function userActivity(user: Pick<UserRow, 'username' | 'last_activity_on'>) {
  return { username: user.username, last_activity_on: user.last_activity_on, last_activity_at: user.last_activity_on };
}
