import type { CommandModule } from 'yargs';
import type { Config } from '../config.js';
import { EtcdClient } from '../cluster/etcd/client.js';
import { coordinatorKeys, readView } from '../cluster/etcd/coordinator.js';
import type { ClusterView } from '../cluster/etcd/election.js';

type Global = { config?: string };
const CALL_MS = 5_000;

/** The coordinator's etcd, as this site's configuration names it; failover stays manual without one. */
function etcdOf(config: Config): { etcd: EtcdClient; prefix: string } {
  if (!config.geoCoordinator) throw new Error('geoCoordinator is not configured: failover is manual here (geoforge geo promote / follow / demote)');
  return { etcd: new EtcdClient(config.geoCoordinator), prefix: config.geoCoordinator.keyPrefix };
}

async function readCluster(etcd: EtcdClient, prefix: string): Promise<ClusterView> {
  return readView(prefix, (await etcd.rangePrefix(prefix, CALL_MS)).kvs);
}

const print = (json: boolean, value: Record<string, unknown>, text: string) => console.log(json ? JSON.stringify(value) : text);

/**
 * `geoforge geo switchover --to NODE` (issue 28, item 4): a planned change of primary through etcd.
 * The command names the target in etcd; the primary's coordinator stops writes, waits until the
 * target applied its last event, and gives the leader key up; the target's wins it and promotes.
 */
async function switchover(config: Config, to: string, timeoutSeconds: number, json: boolean): Promise<void> {
  const { etcd, prefix } = etcdOf(config);
  const keys = coordinatorKeys(prefix);
  try {
    const view = await readCluster(etcd, prefix);
    const leader = view.leader?.record;
    if (!leader) throw new Error('no primary holds the leader key now: nothing to switch over from');
    if (leader.node === to) throw new Error(`${to} is already the primary`);
    const target = view.members.find((member) => member.node === to);
    if (!target) throw new Error(`${to} has no live coordinator in etcd (known: ${view.members.map((member) => member.node).join(', ') || 'none'})`);
    if (target.role !== 'secondary' || target.primary_url !== leader.url) throw new Error(`${to} is not a secondary of the primary ${leader.node}`);
    if (!(await etcd.txn([{ key: keys.switchover, absent: true }], [{ put: keys.switchover, value: JSON.stringify({ to, at: Date.now() }) }], CALL_MS))) {
      throw new Error('a switchover is already under way');
    }
    const deadline = Date.now() + timeoutSeconds * 1000;
    for (;;) {
      const now = await readCluster(etcd, prefix).catch(() => null);
      const holder = now?.leader?.record;
      if (holder?.node === to) {
        print(json, { switched_over: true, primary: holder.node, url: holder.url, epoch: holder.epoch, from: leader.node }, `${to} is the primary (epoch ${holder.epoch}), ${leader.node} follows it`);
        return;
      }
      if (Date.now() >= deadline) {
        await etcd.delete(keys.switchover, CALL_MS).catch(() => undefined);
        throw new Error(`${to} did not become the primary within ${timeoutSeconds} s; the switchover was called off (${leader.node} takes writes again if it still holds the key)`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await etcd.close();
  }
}

/** `geoforge geo failover pause | resume | status`: the pause switch kept in etcd, for maintenance. */
async function failoverSwitch(config: Config, action: 'pause' | 'resume' | 'status', json: boolean): Promise<void> {
  const { etcd, prefix } = etcdOf(config);
  const keys = coordinatorKeys(prefix);
  try {
    if (action === 'pause') await etcd.put(keys.paused, JSON.stringify({ at: new Date().toISOString() }), CALL_MS);
    if (action === 'resume') await etcd.delete(keys.paused, CALL_MS);
    const view = await readCluster(etcd, prefix);
    const members = view.members.map((member) => ({ node: member.node, role: member.role, last_event_id: member.last_event_id, unsynced_blobs: member.unsynced_blobs, decision: member.decision }));
    print(
      json,
      { paused: view.paused, leader: view.leader?.record ?? null, epoch: view.epoch?.value ?? null, last_failover: view.lastFailover, members },
      [
        `automatic failover: ${view.paused ? 'PAUSED' : 'active'}`,
        `leader: ${view.leader ? `${view.leader.record.node} (epoch ${view.leader.record.epoch})` : 'none'}`,
        `last failover: ${view.lastFailover ? `${view.lastFailover.reason} to ${view.lastFailover.to} at ${new Date(view.lastFailover.at).toISOString()} (epoch ${view.lastFailover.epoch})` : 'none'}`,
        ...members.map((member) => `  ${member.node}: ${member.role}, event ${member.last_event_id ?? '-'}: ${member.decision}`),
      ].join('\n'),
    );
  } finally {
    await etcd.close();
  }
}

/** The `geo` commands of automatic failover (issue 28). */
export function geoCoordinatorCommands(configFrom: (argv: Global) => Config): CommandModule<Global, any>[] {
  return [
    {
      command: 'switchover',
      describe: 'planned change of primary through etcd (geoCoordinator): the primary stops writes, the target catches up and takes over',
      builder: (c) =>
        c
          .option('to', { type: 'string', demandOption: true, describe: 'the node name of the secondary to promote' })
          .option('timeout', { type: 'number', default: 60, describe: 'seconds to wait for it' })
          .option('json', { type: 'boolean', default: false }),
      handler: (argv) => switchover(configFrom({ config: argv.config as string | undefined }), argv.to, argv.timeout, argv.json),
    },
    {
      command: 'failover <action>',
      describe: 'pause or resume automatic failover (kept in etcd), or show its state',
      builder: (c) => c.positional('action', { type: 'string', choices: ['pause', 'resume', 'status'], demandOption: true }).option('json', { type: 'boolean', default: false }),
      handler: (argv) => failoverSwitch(configFrom({ config: argv.config as string | undefined }), argv.action, argv.json),
    },
  ];
}
