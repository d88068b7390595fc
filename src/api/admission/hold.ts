import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { sendJson } from '../respond.js';
import type { ConcurrencyLimiter, Refusal } from './limiter.js';

/** How a refusal reads: `{message}` JSON for the API, plain text for git, which shows it to its user. */
export type RefusalStyle = 'json' | 'git';

const STATUS: Record<Refusal, 429 | 503> = { queue_full: 429, queue_timeout: 503 };
const JSON_MESSAGE: Record<Refusal, string> = { queue_full: '429 Too Many Requests', queue_timeout: '503 Service Unavailable' };
const GIT_MESSAGE: Record<Refusal, string> = {
  queue_full: 'The server is busy: too many requests are waiting. Retry later.',
  queue_timeout: 'The server is busy: the request waited too long for its turn. Retry later.',
};

/**
 * Answers a refused request at once with its status, Retry-After (a queue timeout's length: by
 * then the queue has turned over) and the body its client reads; logged at info, with the path
 * only (a query may hold a token).
 */
export function refuse(log: Logger, limiter: ConcurrencyLimiter, req: Request, res: Response, reason: Refusal, style: RefusalStyle): void {
  log.info({ limiter: limiter.name, reason, method: req.method, path: req.path }, 'admission: request refused');
  const status = STATUS[reason];
  res.setHeader('Retry-After', String(Math.max(1, Math.ceil(limiter.settings.queueTimeoutMs / 1000))));
  if (style === 'json') return sendJson(res, status, { message: JSON_MESSAGE[reason] });
  res.status(status).type('text/plain').send(`${GIT_MESSAGE[reason]}\n`);
}

/**
 * Runs `admitted` once the request holds a slot of `limiter`, kept until the response finishes or
 * its connection closes (an aborted request frees its slot, a waiting one leaves the queue);
 * refuses it past the queue. A request whose client is already gone does neither.
 */
export function holdSlot(log: Logger, limiter: ConcurrencyLimiter, req: Request, res: Response, style: RefusalStyle, admitted: () => void): void {
  if (res.closed) return;
  let release: (() => void) | null = null;
  let withdraw = (): void => undefined;
  res.once('close', () => (release ? release() : withdraw()));
  withdraw = limiter.enter(
    (releaseSlot) => {
      release = releaseSlot;
      admitted();
    },
    (reason) => refuse(log, limiter, req, res, reason, style),
  );
}

/** holdSlot for an async handler: true once the request holds a slot, false when it was refused (answered) or its client left. */
export function acquireSlot(log: Logger, limiter: ConcurrencyLimiter, req: Request, res: Response, style: RefusalStyle): Promise<boolean> {
  return new Promise((resolve) => {
    res.once('close', () => resolve(false));
    holdSlot(log, limiter, req, res, style, () => resolve(true));
    if (res.closed || res.headersSent) resolve(false);
  });
}
