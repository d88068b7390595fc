import { Counter, Gauge, type Registry } from 'prom-client';
import type { Coordinator } from './coordinator.js';

/**
 * The coordinator's metrics (issue 28), in the registry of the process that runs it (the
 * supervisor's, aggregated into /-/metrics; the one process's in the embedded mode). Returns the
 * failover counter, which the coordinator increments as it promotes its site.
 */
export function registerCoordinatorMetrics(registry: Registry, coordinator: Coordinator): Counter<'reason'> {
  const failovers = new Counter({ name: 'geo_failovers_total', help: 'Automatic promotions of this site through etcd, by reason (primary lost, switchover)', labelNames: ['reason'] as const, registers: [registry] });
  for (const reason of ['primary lost', 'switchover']) failovers.inc({ reason }, 0);
  new Gauge({
    name: 'geo_coordinator_lease_age_seconds',
    help: "Seconds since this site's etcd session lease was last renewed (-1: it holds none)",
    registers: [registry],
    collect() {
      this.set(coordinator.leaseAgeSeconds() ?? -1);
    },
  });
  new Gauge({
    name: 'geo_coordinator_leader',
    help: '1 while this site holds the leader key in etcd (the primary taking writes)',
    registers: [registry],
    collect() {
      this.set(coordinator.status().holds_leader_key ? 1 : 0);
    },
  });
  new Gauge({
    name: 'geo_coordinator_eligible',
    help: '1 while this secondary is eligible for promotion with no leader in etcd',
    registers: [registry],
    collect() {
      this.set(coordinator.status().eligible ? 1 : 0);
    },
  });
  new Gauge({
    name: 'geo_coordinator_paused',
    help: '1 while automatic failover is paused (geo failover pause)',
    registers: [registry],
    collect() {
      this.set(coordinator.status().paused ? 1 : 0);
    },
  });
  return failovers;
}
