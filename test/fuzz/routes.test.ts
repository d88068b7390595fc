import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeIndex, type RouteEntry } from '../../src/api/route-index.js';
import { mergeabilityChecksSettled } from '../../src/services/merge-requests/mergeability.js';
import { pipelineMergesSettled } from '../../src/services/merge-requests/merge-when-pipeline-succeeds.js';
import { rebasesSettled } from '../../src/services/merge-requests/rebase.js';
import { settleHousekeeping } from '../../src/services/repository/housekeeping.js';
import { repositoryPath, wikiRepositoryPath } from '../../src/storage/layout.js';
import { MAX_BODY_BYTES } from '../../src/storage/limits.js';
import { ROOT_TOKEN, startSite, type TestSite } from '../helpers/site.js';
import { fill, seedWorld, type World } from './world.js';

/**
 * Every route of the route table fuzzed (issue 20, item 2): fast-check generates the path parameters
 * (real ids or hostile values), the caller (anonymous, a developer, the admin), the query and the body
 * (common parameter names and the route's own declared ones, with hostile or plausible values)
 * (malformed types, huge and negative numbers, unicode and NUL bytes, path traversal, bad encodings,
 * unknown parameters) of each request. Every request must answer below 500 within the bound, and a
 * refused one (4xx) must leave the database as it was (no row in geo_event_log, which every
 * replicated write appends to) and the files on disk as they were (diskState: refs, objects,
 * uploads, LFS objects, artifacts). FUZZ_REQUESTS sets the count (default 20,000, the issue's floor for CI), FUZZ_SEED the seed
 * (logged, so that a failure reproduces: FUZZ_SEED=<seed> npx vitest run ... test/fuzz).
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 20_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_2026);
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Routes that would take the seeded world away (delete it, move it, block its users, revoke their
 * tokens, promote the site): the fuzzer sends them hostile ids only, never the real ones.
 */
const DESTRUCTIVE = new Set([
  'delete /projects/:id',
  'delete /groups/:id',
  'delete /users/:id',
  'post /users/:id/block',
  'post /users/:id/ban',
  'put /users/:id',
  'put /projects/:id/transfer',
  'post /groups/:id/transfer',
  'put /groups/:id/transfer',
  'post /groups/:id/projects/:project_id',
  'post /projects/:id/archive',
  'delete /personal_access_tokens/self',
  'delete /personal_access_tokens/:id',
  'post /personal_access_tokens/:id/rotate',
  'post /geo_nodes/:id/promote',
  'post /geo_nodes/:id/repair',
  'delete /projects/:id/members/:user_id',
  'put /projects/:id/members/:user_id',
  'delete /groups/:id/members/:user_id',
  'put /projects/:id',
  'put /groups/:id',
]);

const HOSTILE_SEGMENTS = [
  '-1', '0', '99999999999999999999', '1e309', 'NaN', '0x10', '1.5', ' 1', 'null', 'undefined', '[]', '{}',
  '..%2F..%2F..%2Fetc%2Fpasswd', '..%2F.git%2Fconfig', '%2e%2e%2f%2e%2e', '%00', 'a%00b', '%ff%fe%fd', '%E0%A4%A', '%C0%AE%C0%AE',
  '%F0%9F%92%A9', '%E2%80%AE', 'con', '.git', '.', '..', '~root', '%5C..%5C..', 'a'.repeat(3000), '%25', '*', '?',
  'refs%2Fheads%2Fmaster', 'HEAD~1', 'master..topic', '%0Aset-cookie%3Ax', '%3Cscript%3E',
];

const KNOWN_PARAMS = [
  'title', 'name', 'description', 'path', 'branch', 'ref', 'file_path', 'content', 'encoding', 'commit_message', 'state_event', 'labels',
  'milestone_id', 'assignee_ids', 'assignee_id', 'access_level', 'user_id', 'visibility', 'namespace_id', 'namespace', 'page', 'per_page', 'sort',
  'order_by', 'search', 'scope', 'state', 'source_branch', 'target_branch', 'position', 'label_id', 'body', 'note', 'key', 'url', 'expires_at',
  'scopes', 'format', 'start_branch', 'actions', 'sha', 'tag_name', 'file_name', 'username', 'email', 'password', 'admin', 'confidential',
  'due_date', 'weight', 'duration', 'iids', 'id', 'from', 'to', 'refs', 'recursive', 'level', 'emoji', 'message', 'link_url', 'image_url',
  'group_id', 'group_access', 'parent_id', 'value', 'can_push', 'since', 'until', 'move_before_id', 'move_after_id', 'target_project_id',
  'created_after', 'updated_before', 'author_id', 'type', 'action', 'target_type', 'with_content', 'skip_groups', 'custom_attributes', 'cn',
];

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('../../etc/passwd', '..\\..\\windows', '/etc/passwd', 'a\u0000b', '\u0000', '\uFEFF', '\u202E', '💩', 'ａｄｍｉｎ', '', ' ', '-', '--upload-pack=touch /tmp/x',
    'refs/heads/master', 'HEAD', 'master@{0}', '.git/config', 'a/../../b', 'x'.repeat(70_000), '#ZZZZZZ', 'javascript:alert(1)', 'http://127.0.0.1:1/', '2026-02-30', '9999-99-99'),
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER + 2),
  fc.double(),
);
/** Values that pass parsing (names of the seeded world, levels, dates), so that requests reach deeper than the parameter checks. */
const plausible = fc.constantFrom<unknown>(
  'master', 'topic', 'README.md', 'dir/a.txt', 'bug', 'v1.0', 'Home', 'home', 'hello', 'close', 'reopen', 'opened', 'all', 'private', 'public',
  'markdown', 'base64', 'text', 'create', 'update', 'delete', 'move', 'asc', 'desc', 'created_at', '2026-01-01', '2026-01-01T00:00:00Z', '1h', '#336699',
  1, 2, 3, 10, 20, 30, 40, 50, true, false, ['bug'], 'bug,team', 'http://example.com', 'thumbsup', 'api',
);
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, plausible, plausible, hostileString, hostileNumber, fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(fc.constantFrom(...KNOWN_PARAMS), fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 4 }),
})).value;

type Caller = 'anonymous' | 'member' | 'admin';
type Encoding = 'json' | 'bad-json' | 'form' | 'bad-form' | 'multipart' | 'latin1-json' | 'none';

interface FuzzCase {
  caller: Caller;
  /** For each path parameter: null for the real value, else a hostile segment (already URL-encoded). */
  segments: (string | null)[];
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  encoding: Encoding;
  uploadName: string;
  /** Values for the route's own declared parameters (the route index's `params`), by index into them. */
  declared: { pick: number; value: unknown }[];
}

const segment = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map((text) => encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '?'))) },
);
const params = fc.dictionary(fc.oneof(fc.constantFrom(...KNOWN_PARAMS), fc.string({ maxLength: 10 })), hostileValue, { maxKeys: 6 });

const fuzzCase: fc.Arbitrary<FuzzCase> = fc.record({
  caller: fc.constantFrom<Caller>('anonymous', 'member', 'admin'),
  segments: fc.array(segment, { minLength: 6, maxLength: 6 }),
  query: params,
  body: params,
  encoding: fc.constantFrom<Encoding>('json', 'json', 'json', 'bad-json', 'form', 'bad-form', 'multipart', 'latin1-json', 'none'),
  uploadName: fc.constantFrom('../../../etc/passwd', 'a\u0000.png', '', '.', '..', '💩.txt', 'x'.repeat(300), 'normal.txt', '/abs/path', 'C:\\win.ini'),
  declared: fc.array(fc.record({ pick: fc.nat(), value: hostileValue }), { maxLength: 4 }),
});

let site: TestSite;
let world: World;
let memberToken: string;
/**
 * Paths go out as written, `.` and `..` segments included (a URL would resolve them: a hostile
 * `labels/..` became `DELETE /projects/:id` with the real id and took the world away).
 */
let client: Client;

beforeAll(async () => {
  // A push mirror the fuzzer enables retries within milliseconds, so that settled() sees its updates end.
  site = await startSite({ remoteMirrorRetryBaseMs: 10 });
  world = await seedWorld(site);
  memberToken = world.member.token;
  client = new Client(site.url);
  for (const as of [undefined, memberToken, null]) await site.api('/user', { as });
}, 120_000);
afterAll(async () => {
  await client?.close();
  await site?.stop();
});

/** The newest event a write appended (the primary's own heartbeats, written on a timer, aside). */
const eventLogHead = () => site.site.db.prepare("SELECT coalesce(max(id), 0) FROM geo_event_log WHERE kind != 'heartbeat'").pluck().get() as number;

/** The replicated changes after event `id`, as `op table#row` (what a refused request must not write). */
const changesSince = (id: number) =>
  (site.site.db.prepare('SELECT kind, op, table_name, row_id, substr(payload, 1, 120) AS payload FROM geo_event_log WHERE id > ? AND kind != \'heartbeat\' ORDER BY id').all(id) as Record<string, unknown>[])
    .map((row) => (row.kind === 'row' ? `${row.op} ${row.table_name}#${row.row_id}` : `${row.kind} ${row.payload}`))
    .join(', ');

/**
 * What a refused request must leave as it was on disk, as `path size mtime` per file: everything
 * under the data directory (repositories' refs, HEAD, config and reflogs, uploads, LFS objects,
 * artifacts, avatars) but the database (its event log is compared instead) and tmp; below
 * `objects/` only in the seeded project's repository and wiki (loose objects and packs), where the
 * fuzzer's real ids point, so that the walk stays cheap as accepted requests add projects.
 */
function diskState(): Map<string, string> {
  const root = site.dataDir;
  const watchedObjects = new Set([join(repositoryPath(root, world.project.id), 'objects'), join(wikiRepositoryPath(root, world.project.id), 'objects')]);
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === 'objects' && !watchedObjects.has(full)) continue;
        walk(full);
      } else {
        const info = statSync(full, { throwIfNoEntry: false });
        if (info) files.set(relative(root, full), `${info.size} ${info.mtimeMs}`);
      }
    }
  };
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name !== 'tmp') walk(join(root, entry.name));
  }
  return files;
}

/** The files a request added, removed or changed, as `+path`, `-path`, `~path`. */
function diskChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [file, stamp] of after) if (before.get(file) !== stamp) changes.push(`${before.has(file) ? '~' : '+'}${file}`);
  for (const file of before.keys()) if (!after.has(file)) changes.push(`-${file}`);
  return changes;
}

const importsRunning = () => site.site.db.prepare("SELECT count(*) FROM projects WHERE import_status IN ('scheduled', 'started')").pluck().get() as number;
/** Push mirror updates asked for or running (a mirror the fuzzer enabled, pushed after a commit). */
const mirrorsRunning = () =>
  site.site.db.prepare("SELECT count(*) FROM remote_mirrors WHERE enabled = 1 AND (next_attempt_at IS NOT NULL OR update_status = 'started')").pluck().get() as number;

/**
 * Resolves once background work an accepted request started is done: forks, imports and push
 * mirror updates (at most 30 s), merges after a pipeline and rebases, the mergeability checks they queue, git gc
 * (housekeeping), and then the event log has stopped growing for 100 ms (at most 5 s).
 */
async function settled(): Promise<void> {
  for (let waited = 0; (importsRunning() > 0 || mirrorsRunning() > 0) && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  await Promise.all([pipelineMergesSettled(site.site.ctx), rebasesSettled(site.site.ctx)]);
  await mergeabilityChecksSettled(site.site.ctx);
  await settleHousekeeping(site.site.ctx);
  for (let head = eventLogHead(), quiet = 0, waited = 0; quiet < 2 && waited < 5000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = eventLogHead();
    quiet = now === head ? quiet + 1 : 0;
    head = now;
  }
}

/** A query string from hostile values, with qs's brackets for arrays and hashes. */
function queryString(query: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (key: string, value: unknown, depth: number) => {
    if (Array.isArray(value) && depth < 2) value.forEach((item) => add(`${key}[]`, item, depth + 1));
    else if (value && typeof value === 'object' && depth < 2) Object.entries(value).forEach(([k, v]) => add(`${key}[${k}]`, v, depth + 1));
    else parts.push(`${encode(key)}=${encode(value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value))}`);
  };
  for (const [key, value] of Object.entries(query)) add(key, value, 0);
  return parts.join('&').slice(0, 6000);
}
const encode = (text: string) => encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '?'));

function bodyOf(fuzz: FuzzCase): { body?: string | Buffer; contentType?: string } {
  const json = JSON.stringify(fuzz.body);
  switch (fuzz.encoding) {
    case 'none':
      return {};
    case 'json':
      return { body: json, contentType: 'application/json' };
    case 'bad-json':
      return { body: json.slice(0, Math.max(1, json.length - 1)) + '\u0000{', contentType: 'application/json' };
    case 'latin1-json':
      return { body: Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x00]), Buffer.from('"}')]), contentType: 'application/json; charset=latin1' };
    case 'form':
      return { body: queryString(fuzz.body), contentType: 'application/x-www-form-urlencoded' };
    case 'bad-form':
      return { body: 'title=%E0%A4%A&name=%ZZ&a[b][c][d][e][f][g]=1&' + 'x[]='.repeat(50), contentType: 'application/x-www-form-urlencoded' };
    case 'multipart': {
      const boundary = 'fuzzboundary';
      const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/["\r\n]/g, '_')}"\r\n\r\n${value}\r\n`;
      const fields = Object.entries(fuzz.body).map(([k, v]) => field(k, typeof v === 'string' ? v : JSON.stringify(v) ?? ''));
      const file = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fuzz.uploadName.replace(/["\r\n]/g, '_')}"\r\nContent-Type: application/octet-stream\r\n\r\n\u0000\u00ff binary\r\n`;
      return { body: Buffer.from(fields.join('') + file + `--${boundary}--\r\n`), contentType: `multipart/form-data; boundary=${boundary}` };
    }
  }
}

interface Outcome {
  status: number;
  ms: number;
  text: string;
}

async function send(method: string, url: string, caller: Caller, body: { body?: string | Buffer; contentType?: string }): Promise<Outcome> {
  const headers: Record<string, string> = {};
  if (caller === 'admin') headers['private-token'] = ROOT_TOKEN;
  if (caller === 'member') headers['private-token'] = memberToken;
  if (body.contentType) headers['content-type'] = body.contentType;
  const started = performance.now();
  const response = await client.request({
    // Only what HTTP cannot carry raw (a space, a control character) is escaped, as a URL would escape it.
    path: url.replace(/[^\x21-\x7e]/g, (char) => encodeURIComponent(char)),
    method: method.toUpperCase() as 'GET',
    headers,
    body: body.body,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  const text = await response.body.text();
  return { status: response.statusCode, ms: performance.now() - started, text: text.slice(0, 300) };
}

describe('fuzzing every route of the route table', () => {
  const routes = routeIndex();

  it(`answers ${REQUESTS} generated requests below 500, within the bound, and refusals write nothing, in the database or on disk`, async () => {
    console.log(`fuzz: seed ${SEED}, ${REQUESTS} requests over ${routes.length} routes (FUZZ_SEED=${SEED} FUZZ_REQUESTS=${REQUESTS} to reproduce)`);
    const cases = fc.sample(fuzzCase, { seed: SEED, numRuns: REQUESTS });
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let slowest = 0;
    let refused = 0;
    let filesCompared = 0;
    let disk: Map<string, string> | null = null;
    const started = performance.now();
    for (const [n, fuzz] of cases.entries()) {
      const route: RouteEntry = routes[n % routes.length]!;
      const key = `${route.method} ${route.path}`;
      let i = 0;
      const path = fill(world, route.path, () => {
        const hostile = fuzz.segments[i++ % fuzz.segments.length];
        if (hostile !== null && hostile !== undefined) return hostile;
        return DESTRUCTIVE.has(key) ? '999999' : undefined;
      });
      // The route's declared parameters get values too, so that requests reach past the parameter checks into the handlers.
      const declared = Object.fromEntries(route.params.length ? fuzz.declared.map(({ pick, value }) => [route.params[pick % route.params.length]!, value]) : []);
      if (route.method === 'get') Object.assign(fuzz.query, declared);
      else Object.assign(fuzz.body, declared);
      const query = queryString(fuzz.query);
      const url = `/api/v4${path}${query ? `?${query}` : ''}`;
      const before = eventLogHead();
      const baseline = (disk ??= diskState());
      let outcome: Outcome;
      try {
        outcome = await send(route.method, url, fuzz.caller, route.method === 'get' ? {} : bodyOf(fuzz));
      } catch (error) {
        failures.push(`#${n} ${key} ${url.slice(0, 200)} as ${fuzz.caller}: ${(error as Error).message}`);
        continue;
      }
      slowest = Math.max(slowest, outcome.ms);
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
      const tag = `#${n} ${key} ${url.slice(0, 200)} as ${fuzz.caller} (${fuzz.encoding})`;
      // An accepted write may go on writing in the background (a project's repository, a fork, the
      // mergeability check): let it settle, so that the next refusal is measured alone. A read writes
      // nothing (DESIGN, "No writes on reads") and starts no such work.
      if (outcome.status < 400) {
        if (route.method !== 'get') await settled();
        // An accepted request may change the disk: the next request is measured from the new state.
        disk = null;
      }
      if (outcome.status >= 500) failures.push(`${tag}: ${outcome.status} ${outcome.text}`);
      else if (outcome.status >= 400) {
        refused++;
        if (eventLogHead() !== before) failures.push(`${tag}: refused with ${outcome.status} but wrote ${changesSince(before)}`);
        const after = diskState();
        const changed = diskChanges(baseline, after);
        filesCompared += after.size;
        if (changed.length) failures.push(`${tag}: refused with ${outcome.status} but changed files ${changed.slice(0, 5).join(', ')}`);
        disk = after;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `fuzz: ${cases.length} requests in ${seconds.toFixed(1)} s, slowest ${slowest.toFixed(0)} ms, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}; ` +
        `${refused} refusals each checked against the event log and ${filesCompared} file stamps on disk (${(filesCompared / Math.max(1, refused)).toFixed(0)} files per refusal)`,
    );
    expect(failures).toEqual([]);
    expect(slowest).toBeLessThan(REQUEST_TIMEOUT_MS);
  }, 900_000);

  it('answers 413 to bodies past the limit, JSON and urlencoded, on every write method', async () => {
    const writes = routes.filter((route) => route.method !== 'get');
    const sample = fc.sample(fc.constantFrom(...writes), { seed: SEED, numRuns: 6 });
    const big = Buffer.alloc(MAX_BODY_BYTES + 1024, 'a');
    const jsonBody = Buffer.concat([Buffer.from('{"title":"'), big, Buffer.from('"}')]);
    const formBody = Buffer.concat([Buffer.from('title='), big]);
    for (const route of sample) {
      for (const [body, contentType] of [[jsonBody, 'application/json'], [formBody, 'application/x-www-form-urlencoded']] as const) {
        const before = eventLogHead();
        const outcome = await send(route.method, `/api/v4${fill(world, route.path)}`, 'admin', { body, contentType });
        expect(outcome.status, `${route.method} ${route.path} ${contentType}: ${outcome.text}`).toBe(413);
        expect(eventLogHead()).toBe(before);
      }
    }
  }, 120_000);
});
