import type { Request, Response } from 'express';
import { applicationSettingsView } from '../../entities/application-settings.js';
import { applicationSettings, KNOWN_SETTINGS, readSettingsInput, updateApplicationSettings } from '../../services/administration/application-settings.js';
import type { SiteContext } from '../../site-context.js';
import { openParamsGuard } from '../middleware/value-guards.js';
import { sendJson } from '../respond.js';

/**
 * PUT's parameters: every key, known or not (unknown keys are kept and echoed); the known ones
 * validated with a 400 naming the key.
 */
export const settingsParams = openParamsGuard('settingsParams', readSettingsInput, KNOWN_SETTINGS);

export function showSettings(ctx: SiteContext, _req: Request, res: Response): void {
  sendJson(res, 200, applicationSettingsView(applicationSettings(ctx.db, ctx.config)));
}

export function editSettings(ctx: SiteContext, req: Request, res: Response): void {
  const settings = updateApplicationSettings(ctx.db, ctx.config, settingsParams.of(req));
  // The other workers read settings from memory too: they forget their copy.
  ctx.bus.broadcast({ kind: 'settings-changed' });
  sendJson(res, 200, applicationSettingsView(settings));
}
