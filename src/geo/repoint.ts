import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { prepare } from '../db/connection.js';
import { conflict } from '../errors.js';
import type { SiteContext } from '../site-context.js';
import { readCursor } from './agent/applier.js';
import { PrimaryClient, type EpochInfo } from './agent/primary-client.js';

/** What `geoforge geo follow` did. */
export interface FollowReport {
  readonly primary_url: string;
  readonly epoch: number;
  /** 'continue': the cursor is exactly where the new primary's log begins; 'bootstrap': a fresh snapshot. */
  readonly mode: 'continue' | 'bootstrap';
  readonly reason: string;
  readonly cursor_last_event_id: number | null;
}

/** What `geoforge geo demote` did. */
export interface DemoteReport {
  readonly primary_url: string;
  readonly epoch: number;
  /** The JSON file of the events the new primary never received (null when there were none). */
  readonly exported_file: string | null;
  readonly exported_events: number;
  readonly first_exported_event: { id: number; created_at: string } | null;
  readonly last_exported_event: { id: number; created_at: string } | null;
  /** The last event of this site that the new primary had applied when it was promoted. */
  readonly new_primary_promoted_from_event_id: number | null;
}

/**
 * What demote and follow need of a site: a running site's context (its role then switches in
 * place), or for `--offline` the data directory of a stopped site (the next start takes the role).
 */
export type RepointSite = Pick<SiteContext, 'config' | 'db' | 'fence' | 'externalUrl' | 'nodeName' | 'log' | 'switchRole'>;

/** The new primary's own account of itself; it must be an unfenced primary. */
async function activePrimary(ctx: RepointSite, url: string): Promise<EpochInfo> {
  const secret = ctx.config.geoSecret;
  if (!secret) throw conflict('GEOFORGE_GEO_SECRET is not set: this site cannot talk to another site');
  const client = new PrimaryClient(url, secret, () => ctx.nodeName, () => ctx.fence.claims(ctx.externalUrl));
  try {
    const info = await client.epochInfo(10_000).catch((error: Error) => {
      throw conflict(`${url} cannot be reached: ${error.message}`);
    });
    if (info.role !== 'primary' || info.fenced) throw conflict(`${url} is not an active primary (role ${info.role}${info.fenced ? ', fenced' : ''})`);
    ctx.fence.learn(info.epoch, url, url);
    return info;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * Re-points a secondary at a new primary (issue 18, item 3). It continues from its cursor only
 * when that is exactly the event the new primary was promoted from, after the same old primary:
 * the new primary's log goes on from there. Behind it, the events it lacks are in no log it can
 * reach; ahead of it, it holds writes the new primary never had. Either way it re-bootstraps from
 * a snapshot, so two histories are never merged.
 */
export async function followPrimary(ctx: RepointSite, url: string): Promise<FollowReport> {
  if (ctx.config.role !== 'secondary') throw conflict('This site is a primary: use geoforge geo demote --primary-url to turn it into a secondary');
  const target = url.replace(/\/+$/, '');
  const info = await activePrimary(ctx, target);
  const cursor = readCursor(ctx.db);
  const promotion = info.promotion;
  let mode: FollowReport['mode'] = 'bootstrap';
  let reason: string;
  if (target === ctx.config.primaryUrl && !ctx.fence.current.bootstrapRequired) {
    mode = 'continue';
    reason = 'already following it';
  } else if (!cursor) reason = 'this site has no database yet';
  else if (!promotion || promotion.epoch !== info.epoch) reason = `${target} has no promotion record for its epoch ${info.epoch}`;
  else if (promotion.previous_primary_url !== ctx.config.primaryUrl) reason = `${target} was promoted from ${promotion.previous_primary_url}, not from this site's primary ${ctx.config.primaryUrl}`;
  else if (cursor.lastEventId < promotion.from_event_id) reason = `this site's cursor ${cursor.lastEventId} is behind event ${promotion.from_event_id}, where ${target}'s log begins`;
  else if (cursor.lastEventId > promotion.from_event_id) reason = `this site's cursor ${cursor.lastEventId} is ahead of event ${promotion.from_event_id}: it holds writes ${target} never received`;
  else {
    mode = 'continue';
    reason = `the cursor is at event ${cursor.lastEventId}, where ${target}'s log begins`;
  }
  ctx.fence.transition({ role: 'secondary', primaryUrl: target, epoch: Math.max(ctx.fence.epoch, info.epoch), epochPrimaryUrl: target, ownEpoch: 0, bootstrapRequired: mode === 'bootstrap', reason: 'followed' });
  ctx.log.warn({ primary: target, mode, reason }, 'geo: following a new primary');
  await ctx.switchRole();
  return { primary_url: target, epoch: info.epoch, mode, reason, cursor_last_event_id: cursor?.lastEventId ?? null };
}

interface ExportedEvent {
  id: number;
  created_at: string;
  kind: string;
  table: string | null;
  op: string | null;
  row_id: number | null;
  payload: unknown;
}

/**
 * Turns an old primary into a secondary of the new one (issue 18, item 3). The writes it accepted
 * that the new primary never received (its events after the one the new primary was promoted
 * from) are exported to a JSON file in the data directory and reported, never dropped silently nor
 * merged; then the site re-bootstraps from the new primary.
 */
export async function demoteToSecondary(ctx: RepointSite, url: string): Promise<DemoteReport> {
  if (ctx.config.role !== 'primary') throw conflict('This site is already a secondary: use geoforge geo follow to re-point it');
  const target = url.replace(/\/+$/, '');
  const info = await activePrimary(ctx, target);
  if (info.epoch <= ctx.fence.ownEpoch) throw conflict(`${target} serves epoch ${info.epoch}, not newer than this site's ${ctx.fence.ownEpoch}: it is not this site's successor`);
  const promotion = info.promotion;
  // Promoted from this site: it has every event up to from_event_id. Otherwise nothing is known, and the whole kept log is exported.
  const from = promotion && promotion.previous_primary_url === ctx.externalUrl ? promotion.from_event_id : 0;
  const rows = prepare(ctx.db, "SELECT id, created_at, kind, table_name, op, row_id, payload FROM geo_event_log WHERE id > ? AND kind <> 'heartbeat' ORDER BY id").all(from) as Array<{
    id: number;
    created_at: number;
    kind: string;
    table_name: string | null;
    op: string | null;
    row_id: number | null;
    payload: string | null;
  }>;
  const events: ExportedEvent[] = rows.map((row) => ({
    id: row.id,
    created_at: new Date(row.created_at).toISOString(),
    kind: row.kind,
    table: row.table_name,
    op: row.op,
    row_id: row.row_id,
    payload: row.payload === null ? null : JSON.parse(row.payload),
  }));
  let file: string | null = null;
  if (events.length) {
    file = path.join(ctx.config.dataDir, `geo-unreplicated-events-epoch${ctx.fence.ownEpoch}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const document = { site: ctx.externalUrl, node: ctx.nodeName, epoch: ctx.fence.ownEpoch, new_primary_url: target, new_epoch: info.epoch, after_event_id: from, exported_at: new Date().toISOString(), events };
    writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  }
  ctx.fence.transition({ role: 'secondary', primaryUrl: target, epoch: Math.max(ctx.fence.epoch, info.epoch), epochPrimaryUrl: target, ownEpoch: 0, bootstrapRequired: true, reason: 'demoted' });
  ctx.log.warn({ primary: target, exported: events.length, file }, 'geo: demoted to a secondary');
  await ctx.switchRole();
  return {
    primary_url: target,
    epoch: info.epoch,
    exported_file: file,
    exported_events: events.length,
    first_exported_event: events.length ? { id: events[0].id, created_at: events[0].created_at } : null,
    last_exported_event: events.length ? { id: events[events.length - 1].id, created_at: events[events.length - 1].created_at } : null,
    new_primary_promoted_from_event_id: promotion?.from_event_id ?? null,
  };
}
