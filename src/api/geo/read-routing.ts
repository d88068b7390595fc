import type { Request, Response } from 'express';
import type { BlobType } from '../../geo/blobs.js';
import { isCopyCurrent } from '../../geo/registry/current.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import type { Handler } from '../routes.js';
import type { PrimaryProxy } from './forward-writes.js';

/**
 * Reading from the nearest site (DESIGN, Reads and writes on a secondary): a secondary serves a
 * repository, wiki or file from its own copy only when that copy is current, and has the primary
 * answer otherwise, so a client never gets stale or missing data silently. The response's
 * X-Geoforge-Node names the site that answered.
 */
export interface ReadRouting {
  /** Whether this site's copy of the item may answer. */
  isCurrent(type: BlobType, itemId: number): boolean;
  /** Has the primary answer the request, streamed both ways with the caller's own credentials. */
  fromPrimary(req: Request, res: Response, body?: Buffer): Promise<void>;
}

export function createReadRouting(ctx: SiteContext, proxy: PrimaryProxy): ReadRouting {
  return {
    isCurrent: (type, itemId) => isCopyCurrent(ctx.db, type, itemId),
    fromPrimary: (req, res, body) => proxy(req, res, { body, unreachable: 'the primary site cannot be reached, and this secondary has no current copy of what you asked for' }),
  };
}

/**
 * A read of the item `itemOf` names (a wiki, a repository the route loaded) served from this
 * site's copy only when it is current; otherwise the primary answers, so a file, a branch or a
 * page pushed a moment ago reads back at once from any site.
 */
export const fromCurrentItem =
  (reads: ReadRouting | null, itemOf: (req: Request) => { readonly type: BlobType; readonly id: number }, read: Handler): Handler =>
  (ctx, req, res) => {
    if (reads) {
      const item = itemOf(req);
      if (!reads.isCurrent(item.type, item.id)) return reads.fromPrimary(req, res);
    }
    return read(ctx, req, res);
  };

/** fromCurrentItem for the project's repository or wiki (the route loaded the project). */
export const fromCurrentCopy = (reads: ReadRouting | null, type: 'repository' | 'wiki', read: Handler): Handler =>
  fromCurrentItem(reads, (req) => ({ type, id: projectOf(req).id }), read);
