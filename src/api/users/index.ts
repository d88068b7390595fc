import { customAttributesRoutes } from '../custom-attributes.js';
import { admin, loadGroup, loadProject, signedIn } from '../middleware/guards.js';
import { avatarFile } from '../middleware/value-guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { userIdParam } from './account-owner.js';
import { addUserEmail, emailIdParam, userEmailParams, listUserEmails, removeUserEmail, showUserEmail } from './emails.js';
import { addUserGpgKey, gpgKeyIdParam, gpgKeyParams, listUserGpgKeys, removeUserGpgKey, revokeUserGpgKey, showUserGpgKey } from './gpg-keys.js';
import { removeUserIdentity } from './identities.js';
import { addToken, impersonationListParams, impersonationTokenIdParam, listTokens, revokeToken, showToken, userTokenParams, tokenUserIdParam } from './impersonation-tokens.js';
import {
  addOwnPersonalToken,
  addUserPersonalToken,
  listPersonalTokens,
  personalTokenIdParam,
  personalTokenListParams,
  personalTokenRotateParams,
  revokePersonalToken,
  rotatePersonalToken,
  showPersonalToken,
} from './personal-access-tokens.js';
import {
  addResourceToken,
  listResourceTokens,
  resourceTokenCreateParams,
  resourceTokenId,
  resourceTokenListParams,
  resourceTokenRotateParams,
  revokeResourceToken,
  rotateResourceToken,
  showResourceToken,
} from './resource-access-tokens.js';
import { addUserKey, anyKeyIdParam, sshKeyFingerprintParams, sshKeyIdParam, findKeyByFingerprint, listUserKeys, sshKeyParams, removeUserKey, showKeyWithOwner, showUserKey } from './ssh-keys.js';
import {
  addUser,
  banAccount,
  blockAccount,
  editUser,
  listUserActivities,
  removeUser,
  searchUsers,
  showCurrentUser,
  showUser,
  unblockAccount,
  unbanAccount,
  userAttributes,
  userActivityParams,
  userCreateParams,
  userDeleteParams,
  userEditParams,
  userListParams,
} from './users.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { listMemberships, membershipListParams, membershipsUserId } from './memberships.js';

export { avatarRouter } from './avatar.js';
export { signInRouter } from './sign-in.js';

/**
 * Users, their keys, emails and tokens (SPEC: Users; GITLAB-NOTES 2.8). Listing and reading users
 * is open (readFilters refuses what anonymous callers may not ask). Keys and emails are served
 * twice: under `/user` for the caller (401 anonymous) and under `/users/:id` for admins; accountOwnerId
 * tells the handler which account it addresses. Parameters are read in GitLab's order (users.rb): sign-in
 * (401), then the declared parameters, ids first (400), then authenticated_as_admin! (403) in the endpoint; where
 * GitLab authorizes in a `before` block (tokens, custom attributes), declares the id a String
 * (`GET :user_id/keys`) or not at all (keys.rb `GET /keys/:id`), the id is read after the admin guard.
 */
export const usersRoutes: readonly Route[] = [
  { method: 'get', path: '/users', guards: [paged, userListParams], handler: searchUsers },
  { method: 'get', path: '/users/:id', guards: [userIdParam], handler: showUser },
  { method: 'post', path: '/users', guards: [signedIn, userCreateParams, avatarFile, admin], handler: addUser },
  { method: 'put', path: '/users/:id', guards: [signedIn, userIdParam, avatarFile, userEditParams, admin], handler: editUser },
  { method: 'delete', path: '/users/:id', guards: [signedIn, userIdParam, userDeleteParams, admin, unmodifiedSince], handler: removeUser },
  { method: 'post', path: '/users/:id/block', guards: [signedIn, userIdParam, admin], handler: blockAccount },
  { method: 'post', path: '/users/:id/unblock', guards: [signedIn, userIdParam, admin], handler: unblockAccount },
  { method: 'get', path: '/users/:user_id/memberships', guards: [signedIn, membershipsUserId, membershipListParams, admin], handler: listMemberships },
  { method: 'post', path: '/users/:id/ban', guards: [signedIn, userIdParam, admin], handler: banAccount },
  { method: 'post', path: '/users/:id/unban', guards: [signedIn, userIdParam, admin], handler: unbanAccount },
  { method: 'delete', path: '/users/:id/identities/:provider', guards: [signedIn, userIdParam, admin], handler: removeUserIdentity },
  { method: 'get', path: '/user', guards: [signedIn], handler: showCurrentUser },
  { method: 'get', path: '/user/activities', guards: [signedIn, userActivityParams, paged, admin], handler: listUserActivities },

  { method: 'get', path: '/user/keys', guards: [signedIn, paged], handler: listUserKeys },
  { method: 'get', path: '/user/keys/:key_id', guards: [signedIn, sshKeyIdParam], handler: showUserKey },
  { method: 'post', path: '/user/keys', guards: [signedIn, sshKeyParams], handler: addUserKey },
  { method: 'delete', path: '/user/keys/:key_id', guards: [signedIn, sshKeyIdParam, unmodifiedSince], handler: removeUserKey },
  { method: 'get', path: '/users/:id/keys', guards: [admin, paged, userIdParam], handler: listUserKeys },
  { method: 'get', path: '/users/:id/keys/:key_id', guards: [signedIn, userIdParam, sshKeyIdParam, admin], handler: showUserKey },
  { method: 'post', path: '/users/:id/keys', guards: [signedIn, userIdParam, sshKeyParams, admin], handler: addUserKey },
  { method: 'delete', path: '/users/:id/keys/:key_id', guards: [signedIn, userIdParam, sshKeyIdParam, admin, unmodifiedSince], handler: removeUserKey },
  { method: 'get', path: '/keys', guards: [admin, sshKeyFingerprintParams], handler: findKeyByFingerprint },
  { method: 'get', path: '/keys/:id', guards: [admin, anyKeyIdParam], handler: showKeyWithOwner },

  { method: 'get', path: '/user/gpg_keys', guards: [signedIn, paged], handler: listUserGpgKeys },
  { method: 'get', path: '/user/gpg_keys/:key_id', guards: [signedIn, gpgKeyIdParam], handler: showUserGpgKey },
  { method: 'post', path: '/user/gpg_keys', guards: [signedIn, gpgKeyParams], handler: addUserGpgKey },
  { method: 'delete', path: '/user/gpg_keys/:key_id', guards: [signedIn, gpgKeyIdParam, unmodifiedSince], handler: removeUserGpgKey },
  { method: 'post', path: '/user/gpg_keys/:key_id/revoke', guards: [signedIn, gpgKeyIdParam], handler: revokeUserGpgKey },
  { method: 'get', path: '/users/:id/gpg_keys', guards: [signedIn, userIdParam, admin, paged], handler: listUserGpgKeys },
  { method: 'get', path: '/users/:id/gpg_keys/:key_id', guards: [signedIn, userIdParam, gpgKeyIdParam, admin], handler: showUserGpgKey },
  { method: 'post', path: '/users/:id/gpg_keys', guards: [signedIn, userIdParam, gpgKeyParams, admin], handler: addUserGpgKey },
  { method: 'delete', path: '/users/:id/gpg_keys/:key_id', guards: [signedIn, userIdParam, gpgKeyIdParam, admin, unmodifiedSince], handler: removeUserGpgKey },
  { method: 'post', path: '/users/:id/gpg_keys/:key_id/revoke', guards: [signedIn, userIdParam, gpgKeyIdParam, admin], handler: revokeUserGpgKey },

  { method: 'get', path: '/user/emails', guards: [signedIn, paged], handler: listUserEmails },
  { method: 'get', path: '/user/emails/:email_id', guards: [signedIn, emailIdParam], handler: showUserEmail },
  { method: 'post', path: '/user/emails', guards: [signedIn, userEmailParams], handler: addUserEmail },
  { method: 'delete', path: '/user/emails/:email_id', guards: [signedIn, emailIdParam, unmodifiedSince], handler: removeUserEmail },
  { method: 'get', path: '/users/:id/emails', guards: [signedIn, userIdParam, admin, paged], handler: listUserEmails },
  { method: 'get', path: '/users/:id/emails/:email_id', guards: [signedIn, userIdParam, emailIdParam, admin], handler: showUserEmail },
  { method: 'post', path: '/users/:id/emails', guards: [signedIn, userIdParam, userEmailParams, admin], handler: addUserEmail },
  { method: 'delete', path: '/users/:id/emails/:email_id', guards: [signedIn, userIdParam, emailIdParam, admin, unmodifiedSince], handler: removeUserEmail },

  { method: 'get', path: '/users/:user_id/impersonation_tokens', guards: [admin, tokenUserIdParam, impersonationListParams, paged], handler: listTokens },
  { method: 'get', path: '/users/:user_id/impersonation_tokens/:impersonation_token_id', guards: [admin, tokenUserIdParam, impersonationTokenIdParam], handler: showToken },
  { method: 'post', path: '/users/:user_id/impersonation_tokens', guards: [admin, tokenUserIdParam, userTokenParams], handler: addToken },
  { method: 'delete', path: '/users/:user_id/impersonation_tokens/:impersonation_token_id', guards: [admin, tokenUserIdParam, impersonationTokenIdParam, unmodifiedSince], handler: revokeToken },

  { method: 'post', path: '/users/:user_id/personal_access_tokens', guards: [admin, tokenUserIdParam, userTokenParams], handler: addUserPersonalToken },
  { method: 'post', path: '/user/personal_access_tokens', guards: [signedIn, userTokenParams], handler: addOwnPersonalToken },
  { method: 'get', path: '/personal_access_tokens', guards: [signedIn, personalTokenListParams, paged], handler: listPersonalTokens },
  { method: 'get', path: '/personal_access_tokens/:id', guards: [signedIn, personalTokenIdParam], handler: showPersonalToken },
  { method: 'delete', path: '/personal_access_tokens/:id', guards: [signedIn, personalTokenIdParam], handler: revokePersonalToken },
  { method: 'post', path: '/personal_access_tokens/:id/rotate', guards: [signedIn, personalTokenIdParam, personalTokenRotateParams], handler: rotatePersonalToken },
  // Project and group access tokens (issue 26, item 7): the services answer GitLab's 401 (reads, rotate) and 400 (create, revoke) to whoever may not manage them.
  ...(['project', 'group'] as const).flatMap((kind): Route[] => {
    const base = `/${kind}s/:id/access_tokens`;
    const load = kind === 'project' ? loadProject() : loadGroup();
    return [
      { method: 'get', path: base, guards: [signedIn, resourceTokenListParams, paged, load], handler: listResourceTokens(kind) },
      { method: 'post', path: base, guards: [signedIn, resourceTokenCreateParams, load], handler: addResourceToken(kind) },
      { method: 'get', path: `${base}/:token_id`, guards: [signedIn, resourceTokenId, load], handler: showResourceToken(kind) },
      { method: 'delete', path: `${base}/:token_id`, guards: [signedIn, resourceTokenId, load], handler: revokeResourceToken(kind) },
      { method: 'post', path: `${base}/:token_id/rotate`, guards: [signedIn, resourceTokenId, resourceTokenRotateParams, load], handler: rotateResourceToken(kind) },
    ];
  }),

  ...customAttributesRoutes('/users/:id', [userIdParam], userAttributes),
];
