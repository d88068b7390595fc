import { versionString } from '../../version.js';
import { sendJson } from '../respond.js';
import type { Handler } from '../routes.js';

/** GET /version answers the edition's version and the revision the site was built from. */
export function showVersion(revision: string): Handler {
  return (ctx, _req, res) => sendJson(res, 200, { version: versionString(ctx.config.edition), revision });
}
