import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import {
  findNotificationSetting,
  isConfirmedEmailOf,
  upsertNotificationSetting,
  type NotificationSource,
} from '../../db/tables/notification-settings.js';
import type { UserRow } from '../../db/tables/users.js';
import { badRequest, invalid } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';

/** GitLab's NotificationSetting levels (GITLAB-NOTES: 0 disabled ... 5 custom). */
export const NOTIFICATION_LEVELS = ['disabled', 'participating', 'watch', 'global', 'mention', 'custom'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

/** GitLab 10.x's NotificationSetting::EMAIL_EVENTS: what a `custom` level switches one by one. */
export const NOTIFICATION_EVENTS = [
  'new_note',
  'new_issue',
  'reopen_issue',
  'close_issue',
  'reassign_issue',
  'new_merge_request',
  'reopen_merge_request',
  'close_merge_request',
  'reassign_merge_request',
  'merge_merge_request',
  'failed_pipeline',
  'success_pipeline',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** A setting as the API shows it: the global one adds the address notifications go to. */
export interface NotificationSetting {
  readonly level: NotificationLevel;
  readonly events: Readonly<Record<NotificationEvent, boolean>>;
  readonly notificationEmail: string;
}

export interface NotificationSettingInput {
  readonly level?: string;
  readonly notificationEmail?: string;
  readonly events: Partial<Record<NotificationEvent, boolean>>;
}

/** Whose setting: the user's global one, or the one for a group or a project. */
export type NotificationScope = { readonly kind: 'global' } | { readonly kind: 'group'; readonly id: number } | { readonly kind: 'project'; readonly id: number };

const sourceOf = (scope: NotificationScope): NotificationSource => ({
  projectId: scope.kind === 'project' ? scope.id : null,
  groupId: scope.kind === 'group' ? scope.id : null,
});

/**
 * The user's setting for the scope. Without a row it is the default, participating globally and
 * global for a group or project, read without writing one (GitLab creates it on read; a
 * secondary cannot, and nothing needs the row until the user changes it).
 */
export function getNotificationSetting(db: Db, user: UserRow, scope: NotificationScope): NotificationSetting {
  const row = findNotificationSetting(db, user.id, sourceOf(scope));
  const stored = row ? (JSON.parse(row.events) as Partial<Record<NotificationEvent, boolean>>) : {};
  const events = Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, stored[event] === true])) as Record<NotificationEvent, boolean>;
  return {
    level: (row?.level as NotificationLevel | undefined) ?? (scope.kind === 'global' ? 'participating' : 'global'),
    events,
    notificationEmail: row?.notification_email ?? user.email,
  };
}

/**
 * Changes the level, custom events and (global only) the notification email. A level outside
 * GitLab's enum is 400 `'x' is not a valid level`; an address that is not the user's primary or a
 * confirmed secondary email is 400 `{notification_email: ["is not an email you own"]}`; an empty
 * one goes back to the primary email.
 */
export function updateNotificationSetting(db: Db, user: UserRow, scope: NotificationScope, input: NotificationSettingInput): NotificationSetting {
  if (input.level !== undefined && !(NOTIFICATION_LEVELS as readonly string[]).includes(input.level)) throw badRequest(`'${input.level}' is not a valid level`);
  return inTransaction(db, () => {
    const source = sourceOf(scope);
    const row = findNotificationSetting(db, user.id, source);
    const current = getNotificationSetting(db, user, scope);
    let notificationEmail = row?.notification_email ?? null;
    if (scope.kind === 'global' && input.notificationEmail !== undefined) {
      const email = input.notificationEmail.trim();
      if (email !== '' && !isConfirmedEmailOf(db, user.id, email)) throw invalid({ notification_email: ['is not an email you own'] });
      notificationEmail = email === '' || email.toLowerCase() === user.email.toLowerCase() ? null : email.toLowerCase();
    }
    const events = { ...current.events, ...input.events };
    upsertNotificationSetting(db, user.id, source, { level: input.level ?? current.level, events: JSON.stringify(events), notification_email: notificationEmail }, nowIso());
    return getNotificationSetting(db, user, scope);
  });
}
