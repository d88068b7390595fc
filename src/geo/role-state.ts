import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config, type Role } from '../config.js';

/**
 * The role a site runs with, persisted in its data directory (issue 18, item 1) once a promotion,
 * a demotion, a `follow` or a learned epoch changed anything: a restart keeps it. A site that never
 * had one runs with its configuration's role.
 */
export interface RoleState {
  readonly role: Role;
  /** A secondary's primary. */
  readonly primaryUrl: string | null;
  /** The highest fencing epoch this site knows of, and the URL of that epoch's primary (null: this site). */
  readonly epoch: number;
  readonly epochPrimaryUrl: string | null;
  /** A primary's own epoch: a known epoch above it fences this site (read-only until demoted). */
  readonly ownEpoch: number;
  /**
   * The configuration the site had when this state was written: a restart with that configuration
   * keeps this state (the operator need not edit it in a hurry); any other role in the
   * configuration is a conflict, refused at boot.
   */
  readonly supersedes: { readonly role: Role; readonly primaryUrl: string | null };
  /** Set by demote and by a follow that cannot continue from its cursor: the agent re-bootstraps, then clears it. */
  readonly bootstrapRequired?: boolean;
  readonly reason: 'promoted' | 'demoted' | 'followed' | 'learned epoch';
  readonly changedAt: string;
}

const roleStatePath = (dataDir: string): string => path.join(dataDir, 'geo-role.json');

/** The persisted state, or null when the site never changed role nor learned an epoch. */
export function readRoleState(dataDir: string): RoleState | null {
  const file = roleStatePath(dataDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`${file}: ${(error as Error).message}`);
  }
  try {
    const state = JSON.parse(text) as RoleState;
    if ((state.role !== 'primary' && state.role !== 'secondary') || !Number.isSafeInteger(state.epoch)) throw new Error('not a role state');
    return state;
  } catch (error) {
    throw new ConfigError(`${file}: unreadable role state (${(error as Error).message}); restore it or remove it to use the configured role`);
  }
}

/** Writes the state atomically and durably. */
export function writeRoleState(dataDir: string, state: RoleState): void {
  writeDurably(dataDir, roleStatePath(dataDir), `${JSON.stringify(state, null, 2)}\n`);
}

/** A planned promotion's write pause on a primary, until `until` (ms since the epoch), asked for by the node `by`. */
export interface Freeze {
  readonly until: number;
  readonly by: string;
}

const freezePath = (dataDir: string): string => path.join(dataDir, 'geo-freeze.json');

/**
 * The freeze the site was under when it stopped; null when none (or one that cannot be read: the
 * file is only ever replaced whole, so that is a file somebody else wrote, and no freeze).
 */
export function readFreeze(dataDir: string): Freeze | null {
  try {
    const freeze = JSON.parse(readFileSync(freezePath(dataDir), 'utf8')) as Freeze;
    return Number.isSafeInteger(freeze.until) && typeof freeze.by === 'string' ? freeze : null;
  } catch {
    return null;
  }
}

/** Records a freeze (null: lifted) durably, so that a primary restarted within the lease stays frozen. */
export function writeFreeze(dataDir: string, freeze: Freeze | null): void {
  if (freeze) return writeDurably(dataDir, freezePath(dataDir), `${JSON.stringify(freeze)}\n`);
  rmSync(freezePath(dataDir), { force: true });
  fsyncDirectory(dataDir);
}

/** A temp file fsynced, renamed over the old one, the directory fsynced: the file is whole, old or new, after any crash. */
function writeDurably(dataDir: string, file: string, text: string): void {
  const part = `${file}.part`;
  writeFileSync(part, text);
  const fd = openSync(part, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(part, file);
  fsyncDirectory(dataDir);
}

function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const describe = (role: Role, primaryUrl: string | null) => (role === 'primary' ? 'primary' : `secondary of ${primaryUrl}`);
const sameRole = (a: { role: Role; primaryUrl: string | null }, b: { role: Role; primaryUrl: string | null }) =>
  a.role === b.role && (a.role === 'primary' || a.primaryUrl === b.primaryUrl);

/**
 * The configuration the site runs with: the configured one for a site without a persisted role,
 * else the persisted role. A configuration that names neither the persisted role nor the one it
 * replaced is a ConfigError naming both, so two sources never silently disagree.
 */
export function resolveRole(config: Config, state: RoleState | null): Config {
  if (!state) return config;
  const configured = { role: config.role, primaryUrl: config.role === 'secondary' ? config.primaryUrl : null };
  if (!sameRole(configured, state) && !sameRole(configured, state.supersedes)) {
    throw new ConfigError(
      `GEOFORGE_ROLE: the configuration says ${describe(configured.role, configured.primaryUrl)}, but ${roleStatePath(config.dataDir)} records ` +
        `${describe(state.role, state.primaryUrl)} (${state.reason} at ${state.changedAt}), which replaced ${describe(state.supersedes.role, state.supersedes.primaryUrl)}. ` +
        'Configure either of those, or use geoforge geo promote / demote / follow to change the role',
    );
  }
  if (state.role === 'secondary' && !config.geoSecret) throw new ConfigError('GEOFORGE_GEO_SECRET: required, the site runs as a secondary (recorded in its data directory)');
  return Object.freeze({ ...config, role: state.role, primaryUrl: state.role === 'secondary' ? state.primaryUrl : config.primaryUrl });
}
