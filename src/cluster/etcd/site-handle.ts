import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { callLocalSite, runLocalCommand } from '../../geo/local-command.js';
import { Coordinator, type CoordinatedSite, type CoordinatorStatus } from './coordinator.js';
import type { SiteView } from './election.js';

/** The site's own port on loopback (never its external URL: that may lead to a load balancer, and another site). */
function loopbackUrl(config: Config): string {
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/**
 * The coordinator's hands on its site: the same signed /api/v4/geo/local/* calls as the operator's
 * `geoforge geo promote | follow | demote`, so an automatic failover runs the fenced, tested paths.
 * `holdLease` reaches every process of the site (the supervisor's bus, or the one process's fence).
 */
export function siteHandle(config: Config, holdLease: (untilMs: number, status: CoordinatorStatus) => void): CoordinatedSite {
  const url = loopbackUrl(config);
  const command = async (name: 'promote' | 'follow' | 'demote', body: object) => {
    for await (const line of runLocalCommand(config, name, body, url)) {
      if (typeof line.error === 'string') throw new Error(line.error);
    }
  };
  return {
    state: async () => {
      const answer = await callLocalSite(config, 'GET', 'coordinator-state', undefined, url);
      if (answer.status !== 200) throw new Error(`coordinator-state answered ${answer.status}: ${String(answer.body.message ?? '')}`);
      return answer.body as unknown as SiteView;
    },
    promote: (epoch) => command('promote', { force: true, epoch }),
    follow: (primaryUrl) => command('follow', { primary_url: primaryUrl }),
    demote: (primaryUrl) => command('demote', { primary_url: primaryUrl }),
    holdLease,
  };
}

/** Starts the coordinator of a site when geoCoordinator is set; null otherwise (failover stays manual). */
export function startCoordinator(config: Config, log: Logger, holdLease: (untilMs: number, status: CoordinatorStatus) => void, onFailover?: (reason: string) => void): Coordinator | null {
  if (!config.geoCoordinator) return null;
  const coordinator = new Coordinator(config.geoCoordinator, { syncReplicas: config.geo.syncReplicas }, siteHandle(config, holdLease), log.child({ component: 'geo-coordinator' }), onFailover);
  coordinator.start();
  log.info({ endpoints: config.geoCoordinator.endpoints, key_prefix: config.geoCoordinator.keyPrefix, ttl_seconds: config.geoCoordinator.ttlSeconds }, 'geo coordinator started (automatic failover through etcd)');
  return coordinator;
}
