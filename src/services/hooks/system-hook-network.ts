import type { Config } from '../../config.js';

/**
 * Whether system hooks may call loopback, link-local and private addresses: GitLab's application
 * setting allow_local_requests_from_system_hooks (on by default), here the config key of that name.
 * The one reader of the setting: the webhook queue asks it at every system hook attempt, and
 * GET/PUT /application/settings can answer from (and later write through) this function.
 */
export function allowLocalRequestsFromSystemHooks(config: Config): boolean {
  return config.allowLocalRequestsFromSystemHooks;
}
