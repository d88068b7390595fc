import { customAttributesRoutes } from '../custom-attributes.js';
import { admin, signedIn } from '../middleware/guards.js';
import { avatarFile } from '../middleware/value-guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { addUserEmail, emailParams, listUserEmails, removeUserEmail, showUserEmail } from './emails.js';
import { addUserGpgKey, gpgKeyParams, listUserGpgKeys, removeUserGpgKey, revokeUserGpgKey, showUserGpgKey } from './gpg-keys.js';
import { removeUserIdentity } from './identities.js';
import { addToken, impersonationListParams, listTokens, revokeToken, showToken, tokenParams } from './impersonation-tokens.js';
import { addUserPersonalToken, listPersonalTokens, personalTokenListParams, revokePersonalToken, showPersonalToken } from './personal-access-tokens.js';
import { addUserKey, fingerprintParams, findKeyByFingerprint, listUserKeys, sshKeyParams, removeUserKey, showKeyWithOwner, showUserKey } from './ssh-keys.js';
import {
  addUser,
  blockAccount,
  editUser,
  listUserActivities,
  removeUser,
  searchUsers,
  showCurrentUser,
  showUser,
  unblockAccount,
  userAttributes,
  activityParams,
  userCreateParams,
  userDeleteParams,
  userEditParams,
  userListParams,
} from './users.js';

export { avatarRouter } from './avatar.js';
export { signInRouter } from './sign-in.js';

/**
 * Users, their keys, emails and tokens (SPEC: Users; GITLAB-NOTES 2.8). Listing and reading users
 * is open (readFilters refuses what anonymous callers may not ask). Keys and emails are served
 * twice: under `/user` for the caller (401 anonymous) and under `/users/:id` for admins (401, then
 * 403, before the id is read); accountOwnerId tells the handler which account it addresses.
 */
export const usersRoutes: readonly Route[] = [
  { method: 'get', path: '/users', guards: [paged, userListParams], handler: searchUsers },
  { method: 'get', path: '/users/:id', guards: [], handler: showUser },
  { method: 'post', path: '/users', guards: [admin, userCreateParams, avatarFile], handler: addUser },
  { method: 'put', path: '/users/:id', guards: [admin, avatarFile, userEditParams], handler: editUser },
  { method: 'delete', path: '/users/:id', guards: [admin, userDeleteParams], handler: removeUser },
  { method: 'post', path: '/users/:id/block', guards: [admin], handler: blockAccount },
  { method: 'post', path: '/users/:id/unblock', guards: [admin], handler: unblockAccount },
  { method: 'delete', path: '/users/:id/identities/:provider', guards: [admin], handler: removeUserIdentity },
  { method: 'get', path: '/user', guards: [signedIn], handler: showCurrentUser },
  { method: 'get', path: '/user/activities', guards: [admin, activityParams, paged], handler: listUserActivities },

  { method: 'get', path: '/user/keys', guards: [signedIn, paged], handler: listUserKeys },
  { method: 'get', path: '/user/keys/:key_id', guards: [signedIn], handler: showUserKey },
  { method: 'post', path: '/user/keys', guards: [signedIn, sshKeyParams], handler: addUserKey },
  { method: 'delete', path: '/user/keys/:key_id', guards: [signedIn], handler: removeUserKey },
  { method: 'get', path: '/users/:id/keys', guards: [admin, paged], handler: listUserKeys },
  { method: 'get', path: '/users/:id/keys/:key_id', guards: [admin], handler: showUserKey },
  { method: 'post', path: '/users/:id/keys', guards: [admin, sshKeyParams], handler: addUserKey },
  { method: 'delete', path: '/users/:id/keys/:key_id', guards: [admin], handler: removeUserKey },
  { method: 'get', path: '/keys', guards: [admin, fingerprintParams], handler: findKeyByFingerprint },
  { method: 'get', path: '/keys/:id', guards: [admin], handler: showKeyWithOwner },

  { method: 'get', path: '/user/gpg_keys', guards: [signedIn, paged], handler: listUserGpgKeys },
  { method: 'get', path: '/user/gpg_keys/:key_id', guards: [signedIn], handler: showUserGpgKey },
  { method: 'post', path: '/user/gpg_keys', guards: [signedIn, gpgKeyParams], handler: addUserGpgKey },
  { method: 'delete', path: '/user/gpg_keys/:key_id', guards: [signedIn], handler: removeUserGpgKey },
  { method: 'post', path: '/user/gpg_keys/:key_id/revoke', guards: [signedIn], handler: revokeUserGpgKey },
  { method: 'get', path: '/users/:id/gpg_keys', guards: [admin, paged], handler: listUserGpgKeys },
  { method: 'get', path: '/users/:id/gpg_keys/:key_id', guards: [admin], handler: showUserGpgKey },
  { method: 'post', path: '/users/:id/gpg_keys', guards: [admin, gpgKeyParams], handler: addUserGpgKey },
  { method: 'delete', path: '/users/:id/gpg_keys/:key_id', guards: [admin], handler: removeUserGpgKey },
  { method: 'post', path: '/users/:id/gpg_keys/:key_id/revoke', guards: [admin], handler: revokeUserGpgKey },

  { method: 'get', path: '/user/emails', guards: [signedIn, paged], handler: listUserEmails },
  { method: 'get', path: '/user/emails/:email_id', guards: [signedIn], handler: showUserEmail },
  { method: 'post', path: '/user/emails', guards: [signedIn, emailParams], handler: addUserEmail },
  { method: 'delete', path: '/user/emails/:email_id', guards: [signedIn], handler: removeUserEmail },
  { method: 'get', path: '/users/:id/emails', guards: [admin, paged], handler: listUserEmails },
  { method: 'get', path: '/users/:id/emails/:email_id', guards: [admin], handler: showUserEmail },
  { method: 'post', path: '/users/:id/emails', guards: [admin, emailParams], handler: addUserEmail },
  { method: 'delete', path: '/users/:id/emails/:email_id', guards: [admin], handler: removeUserEmail },

  { method: 'get', path: '/users/:user_id/impersonation_tokens', guards: [admin, impersonationListParams, paged], handler: listTokens },
  { method: 'get', path: '/users/:user_id/impersonation_tokens/:token_id', guards: [admin], handler: showToken },
  { method: 'post', path: '/users/:user_id/impersonation_tokens', guards: [admin, tokenParams], handler: addToken },
  { method: 'delete', path: '/users/:user_id/impersonation_tokens/:token_id', guards: [admin], handler: revokeToken },

  { method: 'post', path: '/users/:user_id/personal_access_tokens', guards: [admin, tokenParams], handler: addUserPersonalToken },
  { method: 'get', path: '/personal_access_tokens', guards: [signedIn, personalTokenListParams, paged], handler: listPersonalTokens },
  { method: 'get', path: '/personal_access_tokens/:id', guards: [signedIn], handler: showPersonalToken },
  { method: 'delete', path: '/personal_access_tokens/:id', guards: [signedIn], handler: revokePersonalToken },

  ...customAttributesRoutes('/users/:id', [], userAttributes),
];
