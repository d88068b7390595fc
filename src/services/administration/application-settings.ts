import type { Config } from '../../config.js';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { VISIBILITY, VISIBILITY_NAMES, visibilityName, type VisibilityName } from '../../db/levels.js';
import { selectStoredSettings, upsertStoredSettings } from '../../db/tables/application-settings.js';
import { ConfigError } from '../../config.js';
import { AppError, badRequest } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';

/**
 * GitLab's application settings (GET/PUT /application/settings) that change what this forge does,
 * each read by the code it governs. The config file's `applicationSettings` object and its older
 * keys (allowLocalRequests, rateLimit*) are the defaults; what an admin PUTs is kept in the
 * replicated application_settings row and wins. Keys GitLab has and geoforge does not act on are
 * kept and echoed, as the issue asks.
 */
export interface ApplicationSettings {
  readonly signup_enabled: boolean;
  readonly default_project_visibility: VisibilityName;
  readonly default_group_visibility: VisibilityName;
  readonly default_snippet_visibility: VisibilityName;
  /** The projects_limit a new user gets when the admin creating them gives none. */
  readonly default_projects_limit: number;
  readonly gravatar_enabled: boolean;
  /** Levels only admins may give a project or group. */
  readonly restricted_visibility_levels: readonly VisibilityName[];
  /** Webhooks and imports may reach loopback, link-local and private addresses (the SSRF rule). */
  readonly allow_local_requests_from_web_hooks_and_services: boolean;
  readonly allow_local_requests_from_system_hooks: boolean;
  readonly throttle_authenticated_api_enabled: boolean;
  readonly throttle_authenticated_api_requests_per_period: number;
  readonly throttle_authenticated_api_period_in_seconds: number;
  readonly throttle_unauthenticated_api_enabled: boolean;
  readonly throttle_unauthenticated_api_requests_per_period: number;
  readonly throttle_unauthenticated_api_period_in_seconds: number;
  /** Keys set through the API that geoforge does not act on, echoed as given. */
  readonly other: Readonly<Record<string, unknown>>;
}

type Known = Exclude<keyof ApplicationSettings, 'other'>;
type Read = (raw: unknown, name: string) => unknown;

const invalidValue = (name: string) => badRequest(`${name} is invalid`);

const bool: Read = (raw, name) => {
  if (typeof raw === 'boolean') return raw;
  const text = String(raw).toLowerCase();
  if (['true', '1', 't', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'f', 'no', 'off'].includes(text)) return false;
  throw invalidValue(name);
};
const count =
  (min: number, max: number): Read =>
  (raw, name) => {
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string' || !/^\d{1,10}$/.test(text.trim())) throw invalidValue(name);
    const value = Number(text);
    if (value < min || value > max) throw badRequest(`${name} does not have a valid value`);
    return value;
  };
/** A visibility by name or by GitLab's level number (0, 10, 20). */
const visibility: Read = (raw, name) => {
  const text = String(raw).toLowerCase();
  const byLevel = VISIBILITY_NAMES.find((key) => String(VISIBILITY[key]) === text);
  if (byLevel) return byLevel;
  if ((VISIBILITY_NAMES as string[]).includes(text)) return text;
  throw badRequest(`${name} does not have a valid value`);
};
/** A list of visibilities: a JSON array, repeated `key[]=`, or comma-separated text; empty clears it. */
const visibilities: Read = (raw, name) => {
  const items = Array.isArray(raw) ? raw : raw === '' || raw === null ? [] : String(raw).split(',');
  return [...new Set(items.filter((item) => item !== '').map((item) => visibility(item, name) as VisibilityName))].sort((a, b) => VISIBILITY[a] - VISIBILITY[b]);
};

const MAX_INT = 2_147_483_647;

/** Every setting geoforge acts on: how a value is read, and its default from the config. */
const SETTINGS: Record<Known, { read: Read; fallback: (config: Config) => unknown }> = {
  signup_enabled: { read: bool, fallback: () => true },
  default_project_visibility: { read: visibility, fallback: () => 'private' },
  default_group_visibility: { read: visibility, fallback: () => 'private' },
  default_snippet_visibility: { read: visibility, fallback: () => 'private' },
  default_projects_limit: { read: count(0, MAX_INT), fallback: () => 100_000 },
  gravatar_enabled: { read: bool, fallback: () => false },
  restricted_visibility_levels: { read: visibilities, fallback: () => [] },
  allow_local_requests_from_web_hooks_and_services: { read: bool, fallback: (config) => config.allowLocalRequests },
  allow_local_requests_from_system_hooks: { read: bool, fallback: (config) => config.allowLocalRequestsFromSystemHooks },
  throttle_authenticated_api_enabled: { read: bool, fallback: (config) => config.rateLimit.authenticated > 0 },
  throttle_authenticated_api_requests_per_period: { read: count(1, MAX_INT), fallback: (config) => config.rateLimit.authenticated || 7200 },
  throttle_authenticated_api_period_in_seconds: { read: count(1, 86_400), fallback: (config) => config.rateLimit.periodSeconds },
  throttle_unauthenticated_api_enabled: { read: bool, fallback: (config) => config.rateLimit.unauthenticated > 0 },
  throttle_unauthenticated_api_requests_per_period: { read: count(1, MAX_INT), fallback: (config) => config.rateLimit.unauthenticated || 3600 },
  throttle_unauthenticated_api_period_in_seconds: { read: count(1, 86_400), fallback: (config) => config.rateLimit.periodSeconds },
};

/** The names of the settings geoforge acts on, in the order GET answers them. */
export const KNOWN_SETTINGS = Object.keys(SETTINGS) as readonly Known[];

/** Keys never kept as settings: credentials and sudo ride along with every request's parameters. */
const NOT_SETTINGS = new Set(['private_token', 'access_token', 'job_token', 'sudo', 'id']);
const MAX_OTHER_KEYS = 200;
const MAX_OTHER_BYTES = 65_536;

/**
 * Reads a PUT's parameters (or the config's defaults): known keys are validated (400 naming the
 * key), other keys are kept as they came, within bounds, so that a client's setting round-trips.
 */
export function readSettingsInput(input: Readonly<Record<string, unknown>>): Partial<Record<Known, unknown>> & Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(input)) {
    if (NOT_SETTINGS.has(key) || raw === undefined) continue;
    if (key in SETTINGS) {
      if (raw === null && key !== 'restricted_visibility_levels') continue;
      out[key] = SETTINGS[key as Known].read(raw, key);
    } else {
      if (!/^[a-z][a-z0-9_]{0,99}$/.test(key)) throw badRequest(`${key.slice(0, 100)} is not a setting name`);
      out[key] = raw;
    }
  }
  const others = Object.keys(out).filter((key) => !(key in SETTINGS));
  if (others.length > MAX_OTHER_KEYS || JSON.stringify(others.map((key) => out[key])).length > MAX_OTHER_BYTES) throw badRequest('too many or too large settings');
  return out;
}

/** Refuses, at boot, a config whose `applicationSettings` a PUT would refuse (exit 2, naming the key). */
export function assertSettingsDefaults(config: Config): void {
  try {
    readSettingsInput(config.applicationSettings);
  } catch (error) {
    if (error instanceof AppError) throw new ConfigError(`applicationSettings: ${error.message}`);
    throw error;
  }
}

function resolve(config: Config, stored: Readonly<Record<string, unknown>>): ApplicationSettings {
  const fromConfig = readSettingsInput(config.applicationSettings);
  const merged: Record<string, unknown> = { ...fromConfig, ...stored };
  const known: Record<string, unknown> = {};
  for (const key of KNOWN_SETTINGS) known[key] = key in merged ? merged[key] : SETTINGS[key].fallback(config);
  const other = Object.fromEntries(Object.entries(merged).filter(([key]) => !(key in SETTINGS)));
  return Object.freeze({ ...(known as Omit<ApplicationSettings, 'other'>), other: Object.freeze(other) });
}

/**
 * One resolved copy per open database: every request reads settings (the rate limit runs first),
 * so they come from memory. A write here forgets the copy; on a secondary, the replication agent
 * forgets it when a batch it applied changed the application_settings row, and a bootstrap opens
 * a new database (a new key).
 */
const cache = new WeakMap<Db, ApplicationSettings>();

/** The site's settings, from memory after the first read. */
export function applicationSettings(db: Db, config: Config): ApplicationSettings {
  let settings = cache.get(db);
  if (!settings) {
    settings = resolve(config, selectStoredSettings(db) ?? {});
    cache.set(db, settings);
  }
  return settings;
}

/** Drops the copy in memory: the row changed underneath (replication). */
export function forgetApplicationSettings(db: Db): void {
  cache.delete(db);
}

/** PUT /application/settings: the given keys over what was stored; answers the settings now in force. */
export function updateApplicationSettings(db: Db, config: Config, changes: Readonly<Record<string, unknown>>): ApplicationSettings {
  inTransaction(db, () => {
    const stored = selectStoredSettings(db) ?? {};
    upsertStoredSettings(db, { ...stored, ...changes }, nowIso());
  });
  forgetApplicationSettings(db);
  return applicationSettings(db, config);
}

/**
 * GitLab's text (on `visibility_level`) when a non-admin gives a project or group a level the admin
 * restricted (restricted_visibility_levels), or null when the level is allowed.
 */
export function restrictedVisibilityError(settings: ApplicationSettings, admin: boolean, level: number): string | null {
  if (admin || !settings.restricted_visibility_levels.some((name) => VISIBILITY[name] === level)) return null;
  return `${visibilityName(level)} has been restricted by your GitLab administrator`;
}
