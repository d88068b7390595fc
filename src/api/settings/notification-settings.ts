import type { Request, Response } from 'express';
import { globalNotificationSetting, notificationSetting } from '../../entities/notification-settings.js';
import {
  getNotificationSetting,
  NOTIFICATION_EVENTS,
  updateNotificationSetting,
  type NotificationEvent,
  type NotificationScope,
} from '../../services/settings/notification-settings.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool, given, str, type Reader } from '../params.js';
import { sendJson } from '../respond.js';

const EVENT_PARAMS = Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, bool()])) as Record<NotificationEvent, Reader<boolean | undefined>>;

/** The level, the custom events (booleans: 400 `new_note is invalid`) and the global notification_email, read before the source. */
export const notificationParams = paramsGuard('notificationParams', { level: str(), notification_email: str(), ...EVENT_PARAMS }, ({ level, notification_email: notificationEmail, ...flags }) => {
  const events = given(flags) as Partial<Record<NotificationEvent, boolean>>;
  return { level, notificationEmail, events };
});

/** The handlers of one scope: the caller's global setting, or theirs for the loaded group or project. */
export function notificationHandlers(kind: NotificationScope['kind']) {
  const scopeOf = (req: Request): NotificationScope =>
    kind === 'global' ? { kind } : kind === 'group' ? { kind, id: groupOf(req).id } : { kind, id: projectOf(req).id };
  const view = kind === 'global' ? globalNotificationSetting : notificationSetting;
  return {
    show(ctx: SiteContext, req: Request, res: Response): void {
      sendJson(res, 200, view(getNotificationSetting(ctx.db, requireActor(req).user, scopeOf(req))));
    },
    edit(ctx: SiteContext, req: Request, res: Response): void {
      const input = notificationParams.of(req);
      sendJson(res, 200, view(updateNotificationSetting(ctx.db, requireActor(req).user, scopeOf(req), input)));
    },
  };
}
