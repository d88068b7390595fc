import { resolveOutboundAddress } from './local-network.js';

/** A URL a site fetches from or pushes to for its users is http(s) only: no redirect or submodule may switch git to file://, ssh or ext::. */
export const OUTBOUND_GIT_PROTOCOLS = ['protocol.allow=never', 'protocol.http.allow=always', 'protocol.https.allow=always'] as const;

/**
 * git's settings that pin a URL's host to the address checked here (curl's CURLOPT_RESOLVE), and
 * forbid redirects, which could lead git to a local address the check never saw (imports, push
 * mirrors). Throws LocalNetworkError for a local address unless `allowLocal`.
 */
export async function pinnedGitConfig(source: string, allowLocal: boolean): Promise<string[]> {
  const url = new URL(source);
  const { address, family } = await resolveOutboundAddress(url, allowLocal);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return ['http.followRedirects=false', `http.curloptResolve=${host}:${port}:${family === 6 ? `[${address}]` : address}`];
}

/** Credentials in URLs masked as GitLab's UrlSanitizer does (`https://*****@host/`), for error texts from git. */
export function maskUrlCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1*****@');
}
