import { versionString } from '../../version.js';
import { sendJson } from '../respond.js';
import type { Handler } from '../routes.js';

/**
 * GET /version (and /metadata) as GitLab 17 answers it: the edition's version, the revision the site was built
 * from, the agent server (KAS, never run here: disabled) and whether the edition is Enterprise.
 */
export function showVersion(revision: string): Handler {
  return (ctx, _req, res) =>
    sendJson(res, 200, {
      version: versionString(ctx.config.edition),
      revision,
      kas: { enabled: false, externalUrl: null, version: null },
      enterprise: ctx.config.edition === 'ee',
    });
}
