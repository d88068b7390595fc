import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** A user's notification setting for the whole site (no project, no group), a group or a project. */
export interface NotificationSettingRow {
  id: number;
  user_id: number;
  project_id: number | null;
  group_id: number | null;
  level: string;
  /** JSON object: custom event name -> boolean. */
  events: string;
  /** The global row's address for notifications; null means the primary email. */
  notification_email: string | null;
  created_at: string;
  updated_at: string;
}

/** Which setting of the user a statement addresses. */
export interface NotificationSource {
  readonly projectId: number | null;
  readonly groupId: number | null;
}

export function findNotificationSetting(db: Db, userId: number, source: NotificationSource): NotificationSettingRow | undefined {
  return prepare(db, 'SELECT * FROM notification_settings WHERE user_id = ? AND ifnull(project_id, 0) = ? AND ifnull(group_id, 0) = ?').get(
    userId,
    source.projectId ?? 0,
    source.groupId ?? 0,
  ) as NotificationSettingRow | undefined;
}

export type NotificationSettingValues = Pick<NotificationSettingRow, 'level' | 'events' | 'notification_email'>;

/** Inserts or updates the user's setting for the source (one row per user and source). */
export function upsertNotificationSetting(db: Db, userId: number, source: NotificationSource, values: NotificationSettingValues, now: string): void {
  const existing = findNotificationSetting(db, userId, source);
  if (existing) {
    prepare(db, 'UPDATE notification_settings SET level = @level, events = @events, notification_email = @notification_email, updated_at = @now WHERE id = @id').run({
      ...values,
      id: existing.id,
      now,
    });
    return;
  }
  prepare(
    db,
    `INSERT INTO notification_settings (user_id, project_id, group_id, level, events, notification_email, created_at, updated_at)
     VALUES (@user, @project, @group, @level, @events, @notification_email, @now, @now)`,
  ).run({ ...values, user: userId, project: source.projectId, group: source.groupId, now });
}

/** Whether the address is the user's primary email or one of their confirmed secondary emails (any case). */
export function isConfirmedEmailOf(db: Db, userId: number, email: string): boolean {
  return (
    prepare(
      db,
      `SELECT 1 FROM users WHERE id = @user AND email = @email COLLATE NOCASE
       UNION ALL SELECT 1 FROM emails WHERE user_id = @user AND email = @email COLLATE NOCASE AND confirmed_at IS NOT NULL`,
    ).get({ user: userId, email }) !== undefined
  );
}

/** The user's levels for these projects and groups, in one query: what `permissions.*_access.notification_level` shows. */
export function notificationLevelsOf(
  db: Db,
  userId: number,
  projectIds: readonly number[],
  groupIds: readonly number[],
): { projects: Map<number, string>; groups: Map<number, string> } {
  const projects = new Map<number, string>();
  const groups = new Map<number, string>();
  if (projectIds.length === 0 && groupIds.length === 0) return { projects, groups };
  const rows = prepare(
    db,
    `SELECT project_id, group_id, level FROM notification_settings WHERE user_id = ?
     AND (project_id IN (SELECT value FROM json_each(?)) OR group_id IN (SELECT value FROM json_each(?)))`,
  ).all(userId, JSON.stringify(projectIds), JSON.stringify(groupIds)) as Pick<NotificationSettingRow, 'project_id' | 'group_id' | 'level'>[];
  for (const row of rows) {
    if (row.project_id !== null) projects.set(row.project_id, row.level);
    else if (row.group_id !== null) groups.set(row.group_id, row.level);
  }
  return { projects, groups };
}
