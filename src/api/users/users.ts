import type { Request, Response } from 'express';
import { applicationSettings } from '../../services/administration/application-settings.js';
import { identitiesOf, type IdentityRow, type UserRow } from '../../db/tables/users.js';
import { userActivity, userAdminDetails, userBasic, userDetails, userPublic, userWithAdmin, type EntityContext } from '../../entities/users.js';
import { badRequest, forbidden } from '../../errors.js';
import { monthsAgo } from '../../storage/clock.js';
import { attachUserAvatar } from '../../services/avatars.js';
import { isAdmin } from '../../services/permissions.js';
import {
  blockUser,
  createUser,
  getUser,
  listActivities,
  listUsers,
  unblockUser,
  banUser,
  unbanUser,
  updateUser,
  type UserInput,
} from '../../services/users/users.js';
import { deleteUser } from '../../services/users/delete-user.js';
import type { SiteContext } from '../../site-context.js';
import type { AttributeSubject } from '../custom-attributes.js';
import { requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { avatarFile, paramsGuard } from '../middleware/value-guards.js';
import { bool, date, datetime, hash, int, oneOf, required, str, type Parsed, type Reader } from '../params.js';
import { userIdParam } from './account-owner.js';
import { sendJson, sendNoContent } from '../respond.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

export function searchUsers(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = listUsers(ctx.db, userListParams.of(req), page);
  const view = isAdmin(req.actor) ? withIdentities(ctx, result.rows, userWithAdmin) : result.rows.map((user) => userBasic(user, ctx));
  sendPage(req, res, ctx.externalUrl, page, view, result.total);
}

export function showUser(ctx: SiteContext, req: Request, res: Response): void {
  const user = getUser(ctx.db, userIdParam.of(req));
  sendJson(res, 200, isAdmin(req.actor) ? withIdentities(ctx, [user], userAdminDetails)[0] : userDetails(user, ctx));
}

export async function addUser(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const attrs = userCreateParams.of(req);
  const avatar = avatarFile.of(req);
  // A new user's project limit, unless the admin gives one: the application setting (GitLab's default_projects_limit).
  let user = await createUser(ctx.db, { ...attrs, projects_limit: attrs.projects_limit ?? applicationSettings(ctx.db, ctx.config).default_projects_limit });
  if (avatar) user = await attachUserAvatar(ctx.db, ctx.config.dataDir, user.id, avatar);
  sendJson(res, 201, withIdentities(ctx, [user], userPublic)[0]);
}

export async function editUser(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const id = userIdParam.of(req);
  const avatar = avatarFile.of(req);
  let user = await updateUser(ctx.db, id, userEditParams.of(req));
  if (avatar) user = await attachUserAvatar(ctx.db, ctx.config.dataDir, user.id, avatar);
  sendJson(res, 200, withIdentities(ctx, [user], userPublic)[0]);
}

export async function removeUser(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { hard_delete: hardDelete } = userDeleteParams.of(req);
  await deleteUser(ctx, requireActor(req), userIdParam.of(req), { hardDelete: hardDelete === true, unmodifiedSince: unmodifiedSince.of(req) });
  sendNoContent(res);
}

export function blockAccount(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, blockUser(ctx.db, userIdParam.of(req)));
}

export function unblockAccount(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, unblockUser(ctx.db, userIdParam.of(req)));
}

/** POST /users/:id/ban answers `true` (201) as GitLab does. */
export function banAccount(ctx: SiteContext, req: Request, res: Response): void {
  banUser(ctx.db, userIdParam.of(req));
  sendJson(res, 201, true);
}

export function unbanAccount(ctx: SiteContext, req: Request, res: Response): void {
  unbanUser(ctx.db, userIdParam.of(req));
  sendJson(res, 201, true);
}

export function showCurrentUser(ctx: SiteContext, req: Request, res: Response): void {
  const actor = requireActor(req);
  const view = isAdmin(actor) ? userWithAdmin : userPublic;
  sendJson(res, 200, withIdentities(ctx, [actor.user], view)[0]);
}

export function listUserActivities(ctx: SiteContext, req: Request, res: Response): void {
  const { from } = userActivityParams.of(req);
  const page = paged.of(req);
  const result = listActivities(ctx.db, from ?? monthsAgo(6), page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(userActivity), result.total);
}

/** The user whose custom attributes /users/:id/custom_attributes addresses: 400 for a bad id, 404 `User` when missing. */
export const userAttributes: AttributeSubject = {
  owner: { table: 'user_custom_attributes', column: 'user_id' },
  ownerId: (ctx, req) => getUser(ctx.db, userIdParam.of(req)).id,
};

type UserView<T> = (user: UserRow, identities: readonly IdentityRow[], ctx: EntityContext) => T;

/** Serializes users with their identities, loaded in one query. */
function withIdentities<T>(ctx: SiteContext, users: readonly UserRow[], view: UserView<T>): T[] {
  const identities = identitiesOf(ctx.db, users.map((user) => user.id));
  return users.map((user) => view(user, identities.get(user.id) ?? [], ctx));
}

export const userDeleteParams = paramsGuard('userDeleteParams', { hard_delete: bool() });
export const userActivityParams = paramsGuard('userActivityParams', { from: date() });

/** GITLAB-NOTES 2.8: anonymous callers must name a username; some filters are for admins only. */
export const userListParams = paramsGuard(
  'userListParams',
  {
    active: bool(),
    blocked: bool(),
    search: str(),
    username: str(),
    extern_uid: str(),
    provider: str(),
    external: bool(),
    created_before: datetime(),
    created_after: datetime(),
    custom_attributes: hash(),
    order_by: oneOf(['id', 'name', 'username', 'created_at', 'updated_at'] as const),
    sort: oneOf(['asc', 'desc'] as const),
  },
  (params, req) => {
    const admin = isAdmin(req.actor);
    if (!req.actor && params.username === undefined) throw forbidden('Not authorized to access /api/v4/users');
    if (!admin && (params.external || params.extern_uid !== undefined || params.provider !== undefined)) throw forbidden();
    if ((params.extern_uid === undefined) !== (params.provider === undefined)) throw badRequest('extern_uid, provider provide all or none of parameters');
    return {
      active: params.active,
      blocked: params.blocked,
      search: params.search,
      username: params.username,
      externUid: params.extern_uid,
      provider: params.provider,
      external: params.external,
      createdBefore: admin ? params.created_before : undefined,
      createdAfter: admin ? params.created_after : undefined,
      customAttributes: admin ? params.custom_attributes : undefined,
      orderBy: admin ? (params.order_by ?? 'id') : 'id',
      sort: admin ? (params.sort ?? 'desc') : 'desc',
      searchEmails: admin ? 'substring' : 'exact',
      withBanned: admin,
    } as const;
  },
);

const userParams = (creating: boolean) => {
  const need = <T>(reader: Reader<T | undefined>): Reader<T | undefined> => (creating ? required(reader) : reader);
  return {
    email: need(str()),
    username: need(str()),
    name: need(str()),
    password: str(),
    skype: str(),
    linkedin: str(),
    twitter: str(),
    website_url: str(),
    organization: str(),
    projects_limit: int(),
    extern_uid: str(),
    provider: str(),
    bio: str(),
    location: str(),
    admin: bool(),
    can_create_group: bool(),
    skip_confirmation: bool(),
    external: bool(),
    shared_runners_minutes_limit: int({ min: 0 }),
  };
};

function userInputOf(params: Parsed<ReturnType<typeof userParams>>, creating: boolean): UserInput {
  if ((params.extern_uid === undefined) !== (params.provider === undefined)) throw badRequest('extern_uid, provider provide all or none of parameters');
  return { ...params, skip_confirmation: creating && params.skip_confirmation };
}

/** POST /users: `password` or `reset_password`. */
export const userCreateParams = paramsGuard('userCreateParams', { ...userParams(true), reset_password: bool() }, ({ reset_password: reset, ...params }) => {
  const attrs = userInputOf(params, true);
  if (attrs.password === undefined && !reset) throw badRequest('password, reset_password are missing, at least one parameter must be provided');
  return attrs as UserInput & { username: string; email: string; name: string };
});

export const userEditParams = paramsGuard('userEditParams', userParams(false), (params) => userInputOf(params, false));


