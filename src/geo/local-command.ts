import { request } from 'undici';
import type { Config } from '../config.js';
import { geoAuthorization } from './signing.js';

/** Where the CLI reaches its own running site, and the node name it signs with. */
export function localSite(config: Config, url?: string): { url: string; node: string } {
  const base = (url ?? config.externalUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`).replace(/\/+$/, '');
  return { url: base, node: config.nodeName ?? config.externalUrl ?? base };
}

/**
 * Sends one failover command to the running site (POST /api/v4/geo/local/<command>), signed with
 * the shared secret under the site's own node name; yields each JSON line of the answer.
 */
export async function* runLocalCommand(config: Config, command: 'promote' | 'demote' | 'follow', body: object, url?: string): AsyncGenerator<Record<string, unknown>> {
  if (!config.geoSecret) throw new Error('GEOFORGE_GEO_SECRET is not set: the CLI signs its call to the site with it');
  const site = localSite(config, url);
  let response;
  try {
    response = await request(`${site.url}/api/v4/geo/local/${command}`, {
      method: 'POST',
      headers: { authorization: geoAuthorization(config.geoSecret, site.node, { method: 'POST', path: `/local/${command}` }), 'content-type': 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: 60_000,
      bodyTimeout: 0,
    });
  } catch (error) {
    throw new Error(`the site at ${site.url} cannot be reached (${(error as Error).message}): start it first (an old primary starts read-only once it knows of a newer epoch), or pass --url`);
  }
  let buffer = '';
  for await (const chunk of response.body) {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) yield parse(line, response.statusCode);
    }
  }
  if (buffer.trim()) yield parse(buffer.trim(), response.statusCode);
}

function parse(line: string, status: number): Record<string, unknown> {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { error: `the site answered ${status}: ${line.slice(0, 500)}` };
  }
  if (status >= 400) return { error: typeof value.message === 'string' ? value.message : JSON.stringify(value) };
  return value;
}

/**
 * One call of the operator CLI to its running site (/api/v4/geo/local/<path>, issue 19), signed
 * like the failover commands: the status code and the JSON body. Throws when the site cannot be reached.
 */
export async function callLocalSite(config: Config, method: 'GET' | 'POST', localPath: string, body?: object, url?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  if (!config.geoSecret) throw new Error('GEOFORGE_GEO_SECRET is not set: the CLI signs its call to the site with it');
  const site = localSite(config, url);
  let response;
  try {
    response = await request(`${site.url}/api/v4/geo/local/${localPath}`, {
      method,
      headers: { authorization: geoAuthorization(config.geoSecret, site.node, { method, path: `/local/${localPath.split('?')[0]}` }), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      headersTimeout: 30_000,
      bodyTimeout: 300_000,
    });
  } catch (error) {
    throw new Error(`the site at ${site.url} cannot be reached (${(error as Error).message}): start it first, or pass --url`);
  }
  const text = await response.body.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { message: text.slice(0, 500) };
  }
  return { status: response.statusCode, body: parsed };
}
