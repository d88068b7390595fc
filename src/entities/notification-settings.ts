import type { NotificationSetting } from '../services/settings/notification-settings.js';

/** NotificationSetting: the level, and the custom events only when the level is `custom`. */
export function notificationSetting(setting: NotificationSetting) {
  return { level: setting.level, ...(setting.level === 'custom' ? { events: { ...setting.events } } : {}) };
}

/** GlobalNotificationSetting: adds the address notifications go to. */
export function globalNotificationSetting(setting: NotificationSetting) {
  return { ...notificationSetting(setting), notification_email: setting.notificationEmail };
}
