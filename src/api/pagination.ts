import type { Request, Response } from 'express';
import type { Page } from '../db/page.js';
import { paramsGuard } from './middleware/value-guards.js';
import { int, type Parsed } from './params.js';
import { sendJson } from './respond.js';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** `page` and `per_page`, to spread into a route's schema (read with pageOf). */
export const PAGE_PARAMS = { page: int(), per_page: int() };

/** The only reading of `page` and `per_page`: page >= 1, per_page 1..100 (larger values are clamped, as Kaminari does). */
export function pageOf(params: Parsed<typeof PAGE_PARAMS>): Page {
  const { page, per_page: perPageRaw } = params;
  const current = page !== undefined && page > 0 ? page : 1;
  const perPage = perPageRaw === undefined || perPageRaw < 1 ? DEFAULT_PER_PAGE : Math.min(perPageRaw, MAX_PER_PAGE);
  return { page: current, perPage, offset: (current - 1) * perPage };
}

/** The page of a list route that reads no other parameter (or reads them in guards of its own). */
export const paged = paramsGuard('paged', PAGE_PARAMS, pageOf);

/** A Link header stays below this many characters, well inside the 16 KiB header block clients accept. */
export const MAX_LINK_HEADER = 8192;

/** A link repeats the parameters the route declares (`labels[]` counts as `labels`), never unknown ones. */
function isEchoed(req: Request, key: string): boolean {
  const name = key.replace(/\[.*$/, '');
  return req.declaredParams?.has(name) ?? false;
}

/** GitLab's order (prev, next, first, last); past the bound a long filter costs last, first and prev, never next. */
function boundedLinks(links: { rel: string; link: string }[]): string {
  const kept = [...links];
  const header = () => kept.map(({ link }) => link).join(', ');
  for (const rel of ['last', 'first', 'prev']) {
    if (header().length <= MAX_LINK_HEADER) break;
    const at = kept.findIndex((entry) => entry.rel === rel);
    if (at >= 0) kept.splice(at, 1);
  }
  return header();
}

/**
 * The only writer of pagination headers. `rows` holds at most perPage items; `total` is null when
 * it was too large to count, in which case the next page is assumed while the page is full.
 */
export function sendPage(req: Request, res: Response, externalUrl: string, page: Page, rows: unknown[], total: number | null): void {
  const totalPages = total === null ? null : Math.max(1, Math.ceil(total / page.perPage));
  const hasNext = totalPages === null ? rows.length === page.perPage : page.page < totalPages;
  const next = hasNext ? page.page + 1 : null;
  const prev = page.page > 1 ? page.page - 1 : null;

  const base = new URL(req.originalUrl, 'http://placeholder');
  const echoed = [...base.searchParams].filter(([key]) => isEchoed(req, key));
  const link = (target: number, rel: string) => {
    const query = new URLSearchParams(echoed);
    query.set('page', String(target));
    query.set('per_page', String(page.perPage));
    return { rel, link: `<${externalUrl}${base.pathname}?${query.toString()}>; rel="${rel}"` };
  };
  const links: { rel: string; link: string }[] = [];
  if (prev !== null) links.push(link(prev, 'prev'));
  if (next !== null) links.push(link(next, 'next'));
  links.push(link(1, 'first'));
  if (totalPages !== null) links.push(link(totalPages, 'last'));

  res.setHeader('Link', boundedLinks(links));
  res.setHeader('X-Per-Page', String(page.perPage));
  res.setHeader('X-Page', String(page.page));
  res.setHeader('X-Next-Page', next === null ? '' : String(next));
  res.setHeader('X-Prev-Page', prev === null ? '' : String(prev));
  if (total !== null && totalPages !== null) {
    res.setHeader('X-Total', String(total));
    res.setHeader('X-Total-Pages', String(totalPages));
  }
  sendJson(res, 200, rows);
}
