import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { BLOB_KINDS, type BlobKind } from './storage/blob-store.js';
import type { ObjectStoreConfig } from './storage/object-store.js';

export type Role = 'primary' | 'secondary';
export type Edition = 'ee' | 'ce';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';

export interface LdapConfig {
  readonly url: string;
  readonly bindDn: string;
  readonly password: string;
  readonly base: string;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** Base of every web_url, clone URL and Link header; derived from host and port when unset. */
  readonly externalUrl: string | null;
  readonly rootToken: string | null;
  readonly rootPassword: string | null;
  readonly role: Role;
  readonly primaryUrl: string | null;
  readonly geoSecret: string | null;
  readonly nodeName: string | null;
  readonly edition: Edition;
  readonly ldap: LdapConfig | null;
  readonly logLevel: LogLevel;
  readonly geo: GeoTuning;
  /**
   * Webhooks and imports may reach loopback, link-local and private addresses (GitLab's
   * allow_local_requests_from_web_hooks_and_services); off by default against SSRF.
   */
  readonly allowLocalRequests: boolean;
  /**
   * System hooks may reach loopback, link-local and private addresses (GitLab's
   * allow_local_requests_from_system_hooks, on by default there too: an admin configured them).
   * The default of the application setting of that name (services/administration/application-settings.ts).
   */
  readonly allowLocalRequestsFromSystemHooks: boolean;
  /** The delay after a push mirror's first failed update, doubled after each later one (services/remote-mirrors/worker.ts). */
  readonly remoteMirrorRetryBaseMs: number;
  readonly rateLimit: RateLimitConfig;
  readonly admission: AdmissionConfig;
  /**
   * Defaults of GitLab's application settings under their GitLab names (`signup_enabled`,
   * `default_project_visibility`, ...); PUT /application/settings overrides them at run time.
   */
  readonly applicationSettings: Readonly<Record<string, unknown>>;
  /** The blob kinds kept in an S3 object store instead of the local disk (the default), each with its store. */
  readonly objectStores: Readonly<Partial<Record<BlobKind, ObjectStoreConfig>>>;
  /**
   * Request workers `geoforge serve` forks beside its background worker (src/cluster/); 0 runs the
   * whole site in one process (the embedded/debug mode tests use). Default: the machine's cores.
   */
  readonly workers: number;
  /** Automatic failover through etcd (src/cluster/etcd/); null: failover stays manual. */
  readonly geoCoordinator: GeoCoordinatorConfig | null;
}

/** Replication timings; the defaults suit production, tests shorten them. */
/** GitLab's user and IP rate limits (GitLab.com's figures by default); a limit of 0 turns that one off. */
export interface RateLimitConfig {
  /** Requests per period for each authenticated user's token. */
  readonly authenticated: number;
  /** Requests per period for each client IP without credentials. */
  readonly unauthenticated: number;
  readonly periodSeconds: number;
  /** Loopback clients are not limited (tests, benches, a local reverse proxy that limits itself). */
  readonly exemptLoopback: boolean;
}

/**
 * Admission control of one request worker (issue 27): requests in flight at once, how many more
 * wait, and for how long, before the answer is 429 (queue full) or 503 (waited too long). The API
 * as Workhorse's apiLimit/apiQueueLimit/apiQueueDuration, each git operation kind as Gitaly's
 * concurrency limits.
 */
export interface AdmissionConfig {
  readonly api: ConcurrencyLimit;
  readonly uploadPack: ConcurrencyLimit;
  readonly receivePack: ConcurrencyLimit;
  readonly archive: ConcurrencyLimit;
}

export interface ConcurrencyLimit {
  /** At most this many at once; 0: no limit. */
  readonly limit: number;
  /** At most this many more wait for a slot (first come, first served); 0: none wait, refused at once. */
  readonly queueLimit: number;
  /** A waiting request is refused after this many milliseconds. */
  readonly queueTimeoutMs: number;
}

export interface GeoTuning {
  /** A heartbeat event is appended when the log was idle this long, so lag stays measurable. */
  readonly heartbeatSeconds: number;
  /** How often a secondary reports its status to the primary. */
  readonly statusIntervalSeconds: number;
  /** A secondary whose last report is older than this is unhealthy. */
  readonly statusStaleSeconds: number;
  /** How many events one long-poll answer carries at most. */
  readonly eventBatchSize: number;
  /** Pruning by cursor keeps at least this many of the newest events (the retention cap below still applies). */
  readonly logKeepMin: number;
  /** Events older than this are pruned even if a secondary has not applied them. */
  readonly logRetentionHours: number;
  /** How long a forwarded write or a read carrying a position waits for the local copy to catch up. */
  readonly readYourWritesMs: number;
  /** Blob syncs at once (repositories and wikis; files) until this node's geo_nodes row gives its own capacities. */
  readonly reposMaxCapacity: number;
  readonly filesMaxCapacity: number;
  /** How often the sync scheduler looks for retries that came due (events wake it at once). */
  readonly syncPollMs: number;
  /** A failed sync retries after base * 2^retries (with jitter), up to the cap; longer when the primary lacks the item. */
  readonly retryBaseMs: number;
  readonly retryCapSeconds: number;
  readonly missingRetryCapSeconds: number;
  /** How often the backfill compares the primary's inventory with the registry, and its page size. */
  readonly backfillSeconds: number;
  readonly backfillBatch: number;
  /** Synced items are re-verified once their last verification is this old, this many per backfill tick. */
  readonly reverifySeconds: number;
  readonly verifyBatch: number;
  /**
   * Synchronous replication (issue 18, item 4): a write is answered once this many healthy
   * secondaries have applied its event (0: asynchronous, answered at once), waiting at most
   * syncTimeoutMs; a write answered on timeout is counted, and the primary runs asynchronously
   * until enough secondaries have caught up again.
   */
  readonly syncReplicas: number;
  readonly syncTimeoutMs: number;
}

export const defaults: Config = {
  host: '127.0.0.1',
  port: 8080,
  dataDir: './data',
  externalUrl: null,
  rootToken: null,
  rootPassword: null,
  role: 'primary',
  primaryUrl: null,
  geoSecret: null,
  nodeName: null,
  edition: 'ee',
  ldap: null,
  logLevel: 'info',
  allowLocalRequests: false,
  allowLocalRequestsFromSystemHooks: true,
  remoteMirrorRetryBaseMs: 30_000,
  rateLimit: { authenticated: 2000, unauthenticated: 500, periodSeconds: 60, exemptLoopback: false },
  admission: {
    api: { limit: 32, queueLimit: 64, queueTimeoutMs: 2000 },
    uploadPack: { limit: 16, queueLimit: 32, queueTimeoutMs: 10_000 },
    receivePack: { limit: 8, queueLimit: 16, queueTimeoutMs: 10_000 },
    archive: { limit: 4, queueLimit: 8, queueTimeoutMs: 10_000 },
  },
  applicationSettings: {},
  objectStores: {},
  workers: availableParallelism(),
  geoCoordinator: null,
  geo: {
    heartbeatSeconds: 5,
    statusIntervalSeconds: 10,
    statusStaleSeconds: 60,
    eventBatchSize: 1000,
    logKeepMin: 10_000,
    logRetentionHours: 168,
    readYourWritesMs: 5000,
    reposMaxCapacity: 25,
    filesMaxCapacity: 10,
    syncPollMs: 1000,
    retryBaseMs: 5000,
    retryCapSeconds: 3600,
    missingRetryCapSeconds: 14_400,
    backfillSeconds: 30,
    backfillBatch: 1000,
    reverifySeconds: 86_400,
    verifyBatch: 10,
    syncReplicas: 0,
    syncTimeoutMs: 5000,
  },
};

export class ConfigError extends Error {}

/** `geoCoordinator`: the etcd cluster a site's supervisor holds its session lease and the leader key in. */
export interface GeoCoordinatorConfig {
  readonly endpoints: readonly string[];
  /** Every key of this set of sites starts with it (several sets may share one etcd). */
  readonly keyPrefix: string;
  /** The session lease's time to live: a primary that cannot renew it stops taking writes within it. */
  readonly ttlSeconds: number;
  readonly caFile: string | null;
  readonly certFile: string | null;
  readonly keyFile: string | null;
  readonly username: string | null;
  readonly password: string | null;
  /** Without geoSyncReplicas, the most events a secondary may lack of the lost primary and still be promoted. */
  readonly maximumLagOnFailover: number;
  /** No automatic failover this soon after the previous one (flap protection). */
  readonly minSecondsBetweenFailovers: number;
}

type Raw = Record<string, unknown>;

/** Each setting: its key in a config file and its environment variable. */
const settings = {
  host: 'GEOFORGE_HOST',
  port: 'GEOFORGE_PORT',
  dataDir: 'GEOFORGE_DATA_DIR',
  externalUrl: 'GEOFORGE_EXTERNAL_URL',
  rootToken: 'GEOFORGE_ROOT_TOKEN',
  rootPassword: 'GEOFORGE_ROOT_PASSWORD',
  role: 'GEOFORGE_ROLE',
  primaryUrl: 'GEOFORGE_PRIMARY_URL',
  geoSecret: 'GEOFORGE_GEO_SECRET',
  nodeName: 'GEOFORGE_NODE_NAME',
  edition: 'GEOFORGE_EDITION',
  logLevel: 'GEOFORGE_LOG_LEVEL',
  ldapUrl: 'GEOFORGE_LDAP_URL',
  ldapBindDn: 'GEOFORGE_LDAP_BIND_DN',
  ldapPassword: 'GEOFORGE_LDAP_PASSWORD',
  ldapBase: 'GEOFORGE_LDAP_BASE',
  geoHeartbeatSeconds: 'GEOFORGE_GEO_HEARTBEAT_SECONDS',
  geoStatusIntervalSeconds: 'GEOFORGE_GEO_STATUS_INTERVAL_SECONDS',
  geoStatusStaleSeconds: 'GEOFORGE_GEO_STATUS_STALE_SECONDS',
  geoEventBatchSize: 'GEOFORGE_GEO_EVENT_BATCH_SIZE',
  geoLogKeepMin: 'GEOFORGE_GEO_LOG_KEEP_MIN',
  geoLogRetentionHours: 'GEOFORGE_GEO_LOG_RETENTION_HOURS',
  geoReadYourWritesMs: 'GEOFORGE_GEO_READ_YOUR_WRITES_MS',
  geoReposMaxCapacity: 'GEOFORGE_GEO_REPOS_MAX_CAPACITY',
  geoFilesMaxCapacity: 'GEOFORGE_GEO_FILES_MAX_CAPACITY',
  geoSyncPollMs: 'GEOFORGE_GEO_SYNC_POLL_MS',
  geoRetryBaseMs: 'GEOFORGE_GEO_RETRY_BASE_MS',
  geoRetryCapSeconds: 'GEOFORGE_GEO_RETRY_CAP_SECONDS',
  geoMissingRetryCapSeconds: 'GEOFORGE_GEO_MISSING_RETRY_CAP_SECONDS',
  geoBackfillSeconds: 'GEOFORGE_GEO_BACKFILL_SECONDS',
  geoBackfillBatch: 'GEOFORGE_GEO_BACKFILL_BATCH',
  geoReverifySeconds: 'GEOFORGE_GEO_REVERIFY_SECONDS',
  geoVerifyBatch: 'GEOFORGE_GEO_VERIFY_BATCH',
  geoSyncReplicas: 'GEOFORGE_GEO_SYNC_REPLICAS',
  geoSyncTimeoutMs: 'GEOFORGE_GEO_SYNC_TIMEOUT_MS',
  allowLocalRequests: 'GEOFORGE_ALLOW_LOCAL_REQUESTS',
  allowLocalRequestsFromSystemHooks: 'GEOFORGE_ALLOW_LOCAL_REQUESTS_FROM_SYSTEM_HOOKS',
  remoteMirrorRetryBaseMs: 'GEOFORGE_REMOTE_MIRROR_RETRY_BASE_MS',
  rateLimitAuthenticated: 'GEOFORGE_RATE_LIMIT_AUTHENTICATED',
  rateLimitUnauthenticated: 'GEOFORGE_RATE_LIMIT_UNAUTHENTICATED',
  rateLimitPeriodSeconds: 'GEOFORGE_RATE_LIMIT_PERIOD_SECONDS',
  rateLimitExemptLoopback: 'GEOFORGE_RATE_LIMIT_EXEMPT_LOOPBACK',
  apiLimit: 'GEOFORGE_API_LIMIT',
  apiQueueLimit: 'GEOFORGE_API_QUEUE_LIMIT',
  apiQueueDuration: 'GEOFORGE_API_QUEUE_DURATION',
  gitUploadPackLimit: 'GEOFORGE_GIT_UPLOAD_PACK_LIMIT',
  gitUploadPackQueueLimit: 'GEOFORGE_GIT_UPLOAD_PACK_QUEUE_LIMIT',
  gitUploadPackQueueDuration: 'GEOFORGE_GIT_UPLOAD_PACK_QUEUE_DURATION',
  gitReceivePackLimit: 'GEOFORGE_GIT_RECEIVE_PACK_LIMIT',
  gitReceivePackQueueLimit: 'GEOFORGE_GIT_RECEIVE_PACK_QUEUE_LIMIT',
  gitReceivePackQueueDuration: 'GEOFORGE_GIT_RECEIVE_PACK_QUEUE_DURATION',
  gitArchiveLimit: 'GEOFORGE_GIT_ARCHIVE_LIMIT',
  gitArchiveQueueLimit: 'GEOFORGE_GIT_ARCHIVE_QUEUE_LIMIT',
  gitArchiveQueueDuration: 'GEOFORGE_GIT_ARCHIVE_QUEUE_DURATION',
  applicationSettings: 'GEOFORGE_APPLICATION_SETTINGS',
  objectStores: 'GEOFORGE_OBJECT_STORES',
  objectStoreAccessKeyId: 'GEOFORGE_OBJECT_STORE_ACCESS_KEY_ID',
  objectStoreSecretAccessKey: 'GEOFORGE_OBJECT_STORE_SECRET_ACCESS_KEY',
  workers: 'GEOFORGE_WORKERS',
  geoCoordinator: 'GEOFORGE_GEO_COORDINATOR',
  geoCoordinatorUsername: 'GEOFORGE_GEO_COORDINATOR_USERNAME',
  geoCoordinatorPassword: 'GEOFORGE_GEO_COORDINATOR_PASSWORD',
} as const;

type Key = keyof typeof settings;

/**
 * Layers defaults, then a JSON config file (explicit `file`, else GEOFORGE_CONFIG), then
 * GEOFORGE_* variables, into one frozen Config. The only reader of process.env is the caller
 * that passes `env` in. Every error names the setting it is about.
 */
export function loadConfig(options: { file?: string; env?: NodeJS.ProcessEnv; overrides?: Partial<Config> } = {}): Config {
  const env = options.env ?? {};
  const file = options.file ?? env.GEOFORGE_CONFIG;
  const fromFile = file ? readConfigFile(file) : {};
  const pick = (key: Key): { value: unknown; name: string } | null => {
    const envName = settings[key];
    if (env[envName] !== undefined && env[envName] !== '') return { value: env[envName], name: envName };
    if (fromFile[key] !== undefined && fromFile[key] !== null) return { value: fromFile[key], name: `${file}: ${key}` };
    return null;
  };
  const str = (key: Key): string | null => {
    const got = pick(key);
    if (!got) return null;
    if (typeof got.value !== 'string') throw new ConfigError(`${got.name}: expected a string, got ${JSON.stringify(got.value)}`);
    return got.value;
  };
  const oneOf = <T extends string>(key: Key, allowed: readonly T[], fallback: T): T => {
    const value = str(key);
    if (value === null) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      throw new ConfigError(`${pick(key)!.name}: expected one of ${allowed.join(', ')}, got "${value}"`);
    }
    return value as T;
  };
  const url = (key: Key): string | null => {
    const value = str(key);
    if (value === null) return null;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ConfigError(`${pick(key)!.name}: expected an absolute URL, got "${value}"`);
    }
    if (key !== 'ldapUrl' && !['http:', 'https:'].includes(parsed.protocol)) {
      throw new ConfigError(`${pick(key)!.name}: expected an http or https URL, got "${value}"`);
    }
    return value.replace(/\/+$/, '');
  };

  const count = (key: Key, fallback: number, min: number, max: number): number => {
    const got = pick(key);
    if (!got) return fallback;
    const text = String(got.value);
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) throw new ConfigError(`${got.name}: expected a whole number from ${min} to ${max}, got "${text}"`);
    return value;
  };
  const flag = (key: Key, fallback: boolean): boolean => {
    const got = pick(key);
    if (!got) return fallback;
    if (got.value === true || got.value === 'true') return true;
    if (got.value === false || got.value === 'false') return false;
    throw new ConfigError(`${got.name}: expected true or false, got ${JSON.stringify(got.value)}`);
  };
  /** A JSON object: in the file as one, in the environment as its JSON text. */
  const object = (key: Key): Readonly<Record<string, unknown>> => {
    const got = pick(key);
    if (!got) return {};
    let value = got.value;
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        throw new ConfigError(`${got.name}: expected a JSON object, got ${JSON.stringify(got.value)}`);
      }
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(`${got.name}: expected a JSON object, got ${JSON.stringify(got.value)}`);
    return Object.freeze({ ...(value as Record<string, unknown>) });
  };
  /** One limiter's three settings, under `<prefix>Limit`, `<prefix>QueueLimit` and `<prefix>QueueDuration` (milliseconds). */
  const concurrency = (prefix: 'api' | 'gitUploadPack' | 'gitReceivePack' | 'gitArchive', fallback: ConcurrencyLimit): ConcurrencyLimit => ({
    limit: count(`${prefix}Limit`, fallback.limit, 0, 100_000),
    queueLimit: count(`${prefix}QueueLimit`, fallback.queueLimit, 0, 1_000_000),
    queueTimeoutMs: count(`${prefix}QueueDuration`, fallback.queueTimeoutMs, 1, 3_600_000),
  });
  const port = readPort(pick('port'));
  const role = oneOf('role', ['primary', 'secondary'] as const, defaults.role);
  const primaryUrl = url('primaryUrl');
  const geoSecret = str('geoSecret');
  if (role === 'secondary' && !primaryUrl) throw new ConfigError('GEOFORGE_PRIMARY_URL: required when GEOFORGE_ROLE is secondary');
  if (role === 'secondary' && !geoSecret) throw new ConfigError('GEOFORGE_GEO_SECRET: required when GEOFORGE_ROLE is secondary');
  if (geoSecret !== null && geoSecret.length < 16) throw new ConfigError('GEOFORGE_GEO_SECRET: expected at least 16 characters');
  const rootPassword = str('rootPassword');
  if (rootPassword !== null && (rootPassword.length < 8 || rootPassword.length > 128)) throw new ConfigError('GEOFORGE_ROOT_PASSWORD: expected 8 to 128 characters');
  const rootToken = str('rootToken');
  if (rootToken !== null && rootToken.length < 20) throw new ConfigError('GEOFORGE_ROOT_TOKEN: expected at least 20 characters');

  const ldapUrl = url('ldapUrl');
  const ldap = ldapUrl
    ? { url: ldapUrl, bindDn: str('ldapBindDn') ?? '', password: str('ldapPassword') ?? '', base: required(str('ldapBase'), 'GEOFORGE_LDAP_BASE', 'GEOFORGE_LDAP_URL') }
    : null;

  const config: Config = {
    host: str('host') ?? defaults.host,
    port,
    dataDir: path.resolve(str('dataDir') ?? defaults.dataDir),
    externalUrl: url('externalUrl'),
    rootToken,
    rootPassword,
    role,
    primaryUrl,
    geoSecret,
    nodeName: str('nodeName'),
    edition: oneOf('edition', ['ee', 'ce'] as const, defaults.edition),
    ldap,
    logLevel: oneOf('logLevel', ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const, defaults.logLevel),
    allowLocalRequests: flag('allowLocalRequests', defaults.allowLocalRequests),
    allowLocalRequestsFromSystemHooks: flag('allowLocalRequestsFromSystemHooks', defaults.allowLocalRequestsFromSystemHooks),
    remoteMirrorRetryBaseMs: count('remoteMirrorRetryBaseMs', defaults.remoteMirrorRetryBaseMs, 10, 3_600_000),
    rateLimit: {
      authenticated: count('rateLimitAuthenticated', defaults.rateLimit.authenticated, 0, 100_000_000),
      unauthenticated: count('rateLimitUnauthenticated', defaults.rateLimit.unauthenticated, 0, 100_000_000),
      periodSeconds: count('rateLimitPeriodSeconds', defaults.rateLimit.periodSeconds, 1, 86_400),
      exemptLoopback: flag('rateLimitExemptLoopback', defaults.rateLimit.exemptLoopback),
    },
    admission: {
      api: concurrency('api', defaults.admission.api),
      uploadPack: concurrency('gitUploadPack', defaults.admission.uploadPack),
      receivePack: concurrency('gitReceivePack', defaults.admission.receivePack),
      archive: concurrency('gitArchive', defaults.admission.archive),
    },
    applicationSettings: object('applicationSettings'),
    objectStores: readObjectStores(object('objectStores'), pick('objectStores')?.name ?? 'objectStores', {
      accessKeyId: str('objectStoreAccessKeyId'),
      secretAccessKey: str('objectStoreSecretAccessKey'),
    }),
    workers: count('workers', defaults.workers, 0, 256),
    geoCoordinator: readGeoCoordinator(object('geoCoordinator'), pick('geoCoordinator')?.name ?? 'geoCoordinator', {
      username: str('geoCoordinatorUsername'),
      password: str('geoCoordinatorPassword'),
    }),
    geo: {
      heartbeatSeconds: count('geoHeartbeatSeconds', defaults.geo.heartbeatSeconds, 1, 59),
      statusIntervalSeconds: count('geoStatusIntervalSeconds', defaults.geo.statusIntervalSeconds, 1, 59),
      statusStaleSeconds: count('geoStatusStaleSeconds', defaults.geo.statusStaleSeconds, 2, 86_400),
      eventBatchSize: count('geoEventBatchSize', defaults.geo.eventBatchSize, 1, 100_000),
      logKeepMin: count('geoLogKeepMin', defaults.geo.logKeepMin, 0, 100_000_000),
      logRetentionHours: count('geoLogRetentionHours', defaults.geo.logRetentionHours, 1, 100_000),
      readYourWritesMs: count('geoReadYourWritesMs', defaults.geo.readYourWritesMs, 0, 60_000),
      reposMaxCapacity: count('geoReposMaxCapacity', defaults.geo.reposMaxCapacity, 0, 1000),
      filesMaxCapacity: count('geoFilesMaxCapacity', defaults.geo.filesMaxCapacity, 0, 1000),
      syncPollMs: count('geoSyncPollMs', defaults.geo.syncPollMs, 50, 60_000),
      retryBaseMs: count('geoRetryBaseMs', defaults.geo.retryBaseMs, 10, 3_600_000),
      retryCapSeconds: count('geoRetryCapSeconds', defaults.geo.retryCapSeconds, 1, 604_800),
      missingRetryCapSeconds: count('geoMissingRetryCapSeconds', defaults.geo.missingRetryCapSeconds, 1, 604_800),
      backfillSeconds: count('geoBackfillSeconds', defaults.geo.backfillSeconds, 1, 59),
      backfillBatch: count('geoBackfillBatch', defaults.geo.backfillBatch, 1, 100_000),
      reverifySeconds: count('geoReverifySeconds', defaults.geo.reverifySeconds, 1, 31_536_000),
      verifyBatch: count('geoVerifyBatch', defaults.geo.verifyBatch, 0, 10_000),
      syncReplicas: count('geoSyncReplicas', defaults.geo.syncReplicas, 0, 100),
      syncTimeoutMs: count('geoSyncTimeoutMs', defaults.geo.syncTimeoutMs, 1, 600_000),
    },
    ...options.overrides,
  };
  if (config.geoCoordinator && !config.geoSecret) throw new ConfigError('GEOFORGE_GEO_SECRET: required when GEOFORGE_GEO_COORDINATOR is set (the coordinator signs its calls to the site with it)');
  if (config.geoCoordinator && !config.externalUrl) throw new ConfigError('GEOFORGE_EXTERNAL_URL: required when GEOFORGE_GEO_COORDINATOR is set (the other sites follow this one at that URL)');
  if (config.geoCoordinator && config.port === 0) throw new ConfigError('GEOFORGE_PORT: a fixed port is required when GEOFORGE_GEO_COORDINATOR is set (the coordinator calls its site on it)');
  return Object.freeze(config);
}

const COORDINATOR_FIELDS = ['endpoints', 'keyPrefix', 'ttlSeconds', 'caFile', 'certFile', 'keyFile', 'username', 'password', 'maximumLagOnFailover', 'minSecondsBetweenFailovers'];

/**
 * `geoCoordinator`: `{ "endpoints": ["http://etcd1:2379", ...], "keyPrefix": "/geoforge/", "ttlSeconds": 10, ... }`;
 * absent or empty, failover stays manual. The password may come from GEOFORGE_GEO_COORDINATOR_PASSWORD
 * (and the username from GEOFORGE_GEO_COORDINATOR_USERNAME) rather than the block.
 */
function readGeoCoordinator(raw: Readonly<Record<string, unknown>>, name: string, envCredentials: { username: string | null; password: string | null }): GeoCoordinatorConfig | null {
  if (!Object.keys(raw).length) return null;
  const unknown = Object.keys(raw).filter((key) => !COORDINATOR_FIELDS.includes(key));
  if (unknown.length) throw new ConfigError(`${name}: unknown setting ${unknown.join(', ')}`);
  const text = (key: string): string | null => {
    const field = raw[key];
    if (field === undefined || field === null) return null;
    if (typeof field !== 'string' || field === '') throw new ConfigError(`${name}.${key}: expected a non-empty string, got ${JSON.stringify(field)}`);
    return field;
  };
  const whole = (key: string, fallback: number, min: number, max: number): number => {
    const field = raw[key] ?? fallback;
    if (typeof field !== 'number' || !Number.isSafeInteger(field) || field < min || field > max) throw new ConfigError(`${name}.${key}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(field)}`);
    return field;
  };
  const file = (key: string): string | null => {
    const at = text(key);
    if (at === null) return null;
    try {
      readFileSync(at);
    } catch (error) {
      throw new ConfigError(`${name}.${key}: ${(error as Error).message}`);
    }
    return at;
  };
  const endpoints = raw.endpoints;
  if (!Array.isArray(endpoints) || !endpoints.length) throw new ConfigError(`${name}.endpoints: expected a non-empty array of etcd client URLs`);
  for (const endpoint of endpoints) {
    let parsed: URL | null = null;
    try {
      parsed = typeof endpoint === 'string' ? new URL(endpoint) : null;
    } catch {
      // reported below
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) throw new ConfigError(`${name}.endpoints: expected http or https URLs, got ${JSON.stringify(endpoint)}`);
  }
  const keyPrefix = text('keyPrefix') ?? '/geoforge/';
  if (!keyPrefix.endsWith('/')) throw new ConfigError(`${name}.keyPrefix: expected to end with /, got "${keyPrefix}"`);
  const [certFile, keyFile] = [file('certFile'), file('keyFile')];
  if ((certFile === null) !== (keyFile === null)) throw new ConfigError(`${name}: certFile and keyFile go together (a client certificate and its key)`);
  const username = text('username') ?? envCredentials.username;
  const password = text('password') ?? envCredentials.password;
  if ((username === null) !== (password === null)) throw new ConfigError(`${name}: username and password go together`);
  return Object.freeze({
    endpoints: Object.freeze(endpoints.map((endpoint: string) => endpoint.replace(/\/+$/, ''))),
    keyPrefix,
    ttlSeconds: whole('ttlSeconds', 10, 2, 300),
    caFile: file('caFile'),
    certFile,
    keyFile,
    username,
    password,
    maximumLagOnFailover: whole('maximumLagOnFailover', 100, 0, 1_000_000_000),
    minSecondsBetweenFailovers: whole('minSecondsBetweenFailovers', 60, 0, 86_400),
  });
}

const STORE_FIELDS = ['endpoint', 'region', 'bucket', 'prefix', 'accessKeyId', 'secretAccessKey', 'credentialsFile', 'forcePathStyle', 'caFile', 'proxyDownload', 'presignSeconds', 'timeoutMs'];

/**
 * `objectStores`: `{ "lfs": {...}, "uploads": {...}, "artifacts": {...} }`, each kind left out
 * staying on the local disk. Credentials come from the block, else its `credentialsFile` (JSON
 * `{accessKeyId, secretAccessKey}`), else GEOFORGE_OBJECT_STORE_ACCESS_KEY_ID and _SECRET_ACCESS_KEY.
 */
function readObjectStores(
  raw: Readonly<Record<string, unknown>>,
  name: string,
  envCredentials: { accessKeyId: string | null; secretAccessKey: string | null },
): Readonly<Partial<Record<BlobKind, ObjectStoreConfig>>> {
  const stores: Partial<Record<BlobKind, ObjectStoreConfig>> = {};
  for (const [kind, value] of Object.entries(raw)) {
    const at = `${name}.${kind}`;
    if (!(BLOB_KINDS as readonly string[]).includes(kind)) throw new ConfigError(`${name}: unknown blob kind "${kind}" (expected ${BLOB_KINDS.join(', ')})`);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(`${at}: expected an object`);
    const block = value as Record<string, unknown>;
    const unknown = Object.keys(block).filter((key) => !STORE_FIELDS.includes(key));
    if (unknown.length) throw new ConfigError(`${at}: unknown setting ${unknown.join(', ')}`);
    const text = (key: string, fallback?: string): string => {
      const field = block[key] ?? fallback;
      if (typeof field !== 'string' || (field === '' && fallback !== '')) throw new ConfigError(`${at}.${key}: expected a string${fallback === undefined ? ' (required)' : ''}`);
      return field;
    };
    const bool = (key: string, fallback: boolean): boolean => {
      const field = block[key] ?? fallback;
      if (typeof field !== 'boolean') throw new ConfigError(`${at}.${key}: expected true or false, got ${JSON.stringify(field)}`);
      return field;
    };
    const whole = (key: string, fallback: number, min: number, max: number): number => {
      const field = block[key] ?? fallback;
      if (typeof field !== 'number' || !Number.isSafeInteger(field) || field < min || field > max) throw new ConfigError(`${at}.${key}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(field)}`);
      return field;
    };
    const endpoint = text('endpoint');
    let parsed: URL | null = null;
    try {
      parsed = new URL(endpoint);
    } catch {
      // reported below
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) throw new ConfigError(`${at}.endpoint: expected an http or https URL, got "${endpoint}"`);
    const bucket = text('bucket');
    let credentials = { accessKeyId: block.accessKeyId, secretAccessKey: block.secretAccessKey };
    if (block.credentialsFile !== undefined) {
      const file = text('credentialsFile');
      try {
        credentials = JSON.parse(readFileSync(file, 'utf8')) as typeof credentials;
      } catch (error) {
        throw new ConfigError(`${at}.credentialsFile: ${(error as Error).message}`);
      }
    }
    const accessKeyId = credentials?.accessKeyId ?? envCredentials.accessKeyId;
    const secretAccessKey = credentials?.secretAccessKey ?? envCredentials.secretAccessKey;
    if (typeof accessKeyId !== 'string' || !accessKeyId || typeof secretAccessKey !== 'string' || !secretAccessKey) {
      throw new ConfigError(`${at}: credentials required (accessKeyId and secretAccessKey, a credentialsFile, or GEOFORGE_OBJECT_STORE_ACCESS_KEY_ID and GEOFORGE_OBJECT_STORE_SECRET_ACCESS_KEY)`);
    }
    const prefix = text('prefix', '');
    if (prefix && !prefix.endsWith('/')) throw new ConfigError(`${at}.prefix: expected to end with /, got "${prefix}"`);
    stores[kind as BlobKind] = Object.freeze({
      endpoint: endpoint.replace(/\/+$/, ''),
      region: text('region', 'us-east-1'),
      bucket,
      prefix,
      accessKeyId,
      secretAccessKey,
      forcePathStyle: bool('forcePathStyle', true),
      caFile: block.caFile === undefined ? null : text('caFile'),
      proxyDownload: bool('proxyDownload', true),
      presignSeconds: whole('presignSeconds', 300, 1, 604_800),
      timeoutMs: whole('timeoutMs', 10_000, 100, 600_000),
    });
  }
  return Object.freeze(stores);
}

function readPort(got: { value: unknown; name: string } | null): number {
  if (!got) return defaults.port;
  const text = String(got.value);
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new ConfigError(`${got.name}: expected 0-65535, got "${text}"`);
  return port;
}

function required(value: string | null, name: string, because: string): string {
  if (value === null) throw new ConfigError(`${name}: required when ${because} is set`);
  return value;
}

function readConfigFile(file: string): Raw {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`config file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${file}: not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError(`config file ${file}: expected a JSON object`);
  const unknown = Object.keys(parsed).filter((key) => !(key in settings));
  if (unknown.length) throw new ConfigError(`config file ${file}: unknown setting ${unknown.join(', ')}`);
  return parsed as Raw;
}
