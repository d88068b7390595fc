import type { SiteContext } from '../site-context.js';
import { PrimaryClient } from './agent/primary-client.js';
import { allGeoNodes } from './nodes.js';

/** The other enabled nodes of the replicated node list, by URL. */
export function peerUrls(ctx: SiteContext): string[] {
  const self = ctx.externalUrl.toLowerCase();
  return allGeoNodes(ctx.db)
    .filter((node) => node.enabled && node.name !== ctx.nodeName && node.url.toLowerCase() !== self)
    .map((node) => node.url);
}

/**
 * Exchanges fencing epochs with every other node (issue 18, item 2): each signed call tells the peer
 * this site's epoch, and each answer tells this site the peer's. A promoted primary announces its
 * epoch this way; a primary runs it at start (before it takes writes) and then every status
 * interval, so an old primary that comes back learns it was replaced. Returns who answered.
 */
export async function exchangeEpochs(ctx: SiteContext, timeoutMs: number): Promise<{ told: string[]; notTold: string[] }> {
  const secret = ctx.config.geoSecret;
  const urls = peerUrls(ctx);
  if (!secret || urls.length === 0) return { told: [], notTold: [] };
  const answered = await Promise.all(
    urls.map(async (url) => {
      const client = new PrimaryClient(url, secret, () => ctx.nodeName, () => ctx.fence.claims(ctx.externalUrl));
      try {
        const info = await client.epochInfo(timeoutMs);
        ctx.fence.learn(info.epoch, info.epoch_primary_url, url);
        return true;
      } catch (error) {
        ctx.log.debug({ err: error, peer: url }, 'geo: epoch exchange failed (the peer learns at its next contact)');
        return false;
      } finally {
        await client.close().catch(() => undefined);
      }
    }),
  );
  return { told: urls.filter((_, index) => answered[index]), notTold: urls.filter((_, index) => !answered[index]) };
}
