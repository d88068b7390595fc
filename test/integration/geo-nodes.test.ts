import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastEventId } from '../../src/geo/event-log.js';
import { findGeoNode, storeNodeStatus } from '../../src/geo/nodes.js';
import { geoAuthorization } from '../../src/geo/signing.js';
import { buildStatus, noBlobs } from '../../src/geo/status.js';
import { listCurrentNodeFailures } from '../../src/geo/registry/failures.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const GEO_SECRET = '0123456789abcdef0123';
const KINDS = ['attachments', 'lfs_objects', 'job_artifacts', 'repositories', 'wikis', 'snippet_repositories', 'group_wiki_repositories'];
const now = () => Math.floor(Date.now() / 1000);

/** Geo node (SPEC) with the extras we serve: name and _links. */
function expectGeoNode(body: Record<string, unknown>, siteUrl: string) {
  expect(Object.keys(body).sort()).toEqual(
    ['_links', 'clone_protocol', 'current', 'enabled', 'files_max_capacity', 'id', 'name', 'primary', 'repos_max_capacity', 'selective_sync_namespace_ids', 'selective_sync_shards', 'selective_sync_type', 'url'].sort(),
  );
  expect(body).toMatchObject({
    id: expect.any(Number),
    name: expect.any(String),
    url: expect.stringMatching(/^https?:\/\//),
    primary: expect.any(Boolean),
    enabled: expect.any(Boolean),
    current: expect.any(Boolean),
    files_max_capacity: expect.any(Number),
    repos_max_capacity: expect.any(Number),
    clone_protocol: expect.stringMatching(/^(http|ssh)$/),
  });
  const self = `${siteUrl}/api/v4/geo_nodes/${body.id}`;
  expect(body._links).toEqual({ self, status: `${self}/status`, repair: `${self}/repair` });
}

/** Geo node status (SPEC): every field, with integer Unix-second timestamps. */
function expectGeoNodeStatus(body: Record<string, unknown>) {
  const intOrNull = (value: unknown) => value === null || Number.isInteger(value);
  expect(body).toMatchObject({
    geo_node_id: expect.any(Number),
    healthy: expect.any(Boolean),
    health: expect.any(String),
    health_status: expect.stringMatching(/^(Healthy|Unhealthy)$/),
    missing_oauth_application: false,
  });
  for (const kind of KINDS) {
    for (const suffix of ['count', 'synced_count', 'failed_count']) expect(Number.isInteger(body[`${kind}_${suffix}`])).toBe(true);
    expect(body[`${kind}_synced_in_percentage`]).toMatch(/^\d+\.\d{2}%$/);
  }
  for (const field of ['db_replication_lag_seconds', 'last_event_id', 'last_event_timestamp', 'cursor_last_event_id', 'cursor_last_event_timestamp', 'last_successful_status_check_timestamp']) {
    expect(field in body).toBe(true);
    expect(intOrNull(body[field])).toBe(true);
  }
  for (const field of ['last_event_timestamp', 'cursor_last_event_timestamp', 'last_successful_status_check_timestamp']) {
    // Seconds, not milliseconds.
    if (body[field] !== null) expect(body[field] as number).toBeLessThan(now() + 5);
  }
  expect('version' in body && 'revision' in body).toBe(true);
}

describe('geo nodes', () => {
  let site: TestSite;
  let alice: TestUser;
  let primaryId: number;

  /** A secondary registered the way its agent does it: through the signed site-to-site API. */
  async function registerSecondary(): Promise<{ id: number; name: string; url: string }> {
    const name = `secondary-${randomUUID().slice(0, 8)}`;
    const url = `http://${name}.example.com:8080`;
    const response = await site.api('/geo/nodes', { method: 'POST', as: null, headers: { authorization: geoAuthorization(GEO_SECRET, name, { method: 'POST', path: '/nodes' }) }, body: { name, url } });
    expect(response.status).toBe(201);
    return { id: response.body.id, name, url };
  }

  function secondaryStatus(nodeId: number) {
    return buildStatus({
      nodeId,
      lastEventId: 40,
      lastEventAt: Date.now() - 3000,
      cursorEventId: 38,
      cursorEventAt: Date.now() - 5000,
      problems: [],
      blobs: noBlobs(),
      version: '10.8.0-ee',
      revision: 'abc1234',
      now: Date.now(),
    });
  }

  async function reportStatus(name: string, status: object) {
    const response = await site.api('/geo/status', { method: 'POST', as: null, headers: { authorization: geoAuthorization(GEO_SECRET, name, { method: 'POST', path: '/status' }) }, body: status });
    expect(response.status).toBe(201);
  }

  async function createNode(body: Record<string, unknown> = {}) {
    const name = `node-${randomUUID().slice(0, 8)}`;
    const response = await site.api('/geo_nodes', { method: 'POST', body: { url: `https://${name}.example.com`, name, ...body } });
    expect(response.status).toBe(201);
    return response.body as { id: number; name: string; url: string };
  }

  beforeAll(async () => {
    site = await startSite({ geoSecret: GEO_SECRET, nodeName: 'primary' });
    alice = await createUser(site);
    primaryId = (await site.api('/geo_nodes')).body.find((node: { name: string }) => node.name === 'primary').id;
  });
  afterAll(() => site.stop());

  describe('access', () => {
    const routes: [string, string][] = [
      ['GET', '/geo_nodes'],
      ['GET', '/geo_nodes/1'],
      ['GET', '/geo_nodes/status'],
      ['GET', '/geo_nodes/1/status'],
      ['GET', '/geo_nodes/current/failures'],
      ['POST', '/geo_nodes'],
      ['PUT', '/geo_nodes/1'],
      ['DELETE', '/geo_nodes/1'],
      ['POST', '/geo_nodes/1/repair'],
    ];
    it.each(routes)('%s %s is for admins: 401 anonymous, 403 for other users', async (method, path) => {
      expect(await site.api(path, { method, as: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
      expect(await site.api(path, { method, as: alice.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    });
  });

  describe('GET /geo_nodes and /geo_nodes/:id', () => {
    it('lists the primary, current on the site serving it, with SPEC fields and pagination headers', async () => {
      const response = await site.api('/geo_nodes');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['x-total']).toBe(String(response.body.length));
      expect(response.headers.link).toContain(`${site.url}/api/v4/geo_nodes?`);
      response.body.forEach((node: Record<string, unknown>) => expectGeoNode(node, site.url));
      const primary = response.body.find((node: { id: number }) => node.id === primaryId);
      expect(primary).toMatchObject({ name: 'primary', url: site.url, primary: true, enabled: true, current: true, files_max_capacity: 10, repos_max_capacity: 25, clone_protocol: 'http' });
      expect(response.body.filter((node: { current: boolean }) => node.current)).toHaveLength(1);
    });

    it('pages', async () => {
      await createNode();
      const response = await site.api('/geo_nodes?per_page=1&page=2');
      expect(response.body).toHaveLength(1);
      expect(response.headers).toMatchObject({ 'x-per-page': '1', 'x-page': '2', 'x-prev-page': '1' });
      expect(Number(response.headers['x-total'])).toBeGreaterThanOrEqual(2);
    });

    it('gets one node; 404 GeoNode when unknown, 400 for a non-integer id', async () => {
      const one = await site.api(`/geo_nodes/${primaryId}`);
      expect(one.status).toBe(200);
      expectGeoNode(one.body, site.url);
      expect(one.body).toMatchObject({ id: primaryId, primary: true, current: true });
      expect(await site.api('/geo_nodes/999999')).toMatchObject({ status: 404, body: { message: '404 GeoNode Not Found' } });
      expect(await site.api('/geo_nodes/abc')).toMatchObject({ status: 400, body: { message: 'id is invalid' } });
      expect(await site.api('/geo_nodes/current')).toMatchObject({ status: 400, body: { message: 'id is invalid' } });
    });
  });

  describe('status', () => {
    it("serves the primary's own live status on GET /geo_nodes/:id/status", async () => {
      const response = await site.api(`/geo_nodes/${primaryId}/status`);
      expect(response.status).toBe(200);
      expectGeoNodeStatus(response.body);
      expect(response.body).toMatchObject({
        geo_node_id: primaryId,
        healthy: true,
        health: 'Healthy',
        health_status: 'Healthy',
        db_replication_lag_seconds: null,
        cursor_last_event_id: null,
        cursor_last_event_timestamp: null,
        version: expect.stringMatching(/^\d+\.\d+\.\d+-ee$/),
        revision: expect.any(String),
        repositories_synced_in_percentage: '0.00%',
      });
      expect(response.body.last_event_id).toBeGreaterThan(0);
      expect(Math.abs(response.body.last_successful_status_check_timestamp - now())).toBeLessThanOrEqual(2);
    });

    it('lists only secondaries, each with its stored report or an unhealthy placeholder', async () => {
      const reported = await registerSecondary();
      const silent = await registerSecondary();
      await reportStatus(reported.name, secondaryStatus(reported.id));

      const response = await site.api('/geo_nodes/status?per_page=100');
      expect(response.status).toBe(200);
      expect(response.headers['x-total']).toBe(String(response.body.length));
      response.body.forEach((status: Record<string, unknown>) => expectGeoNodeStatus(status));
      const ids = response.body.map((status: { geo_node_id: number }) => status.geo_node_id);
      expect(ids).not.toContain(primaryId);
      expect(ids).toEqual(expect.arrayContaining([reported.id, silent.id]));

      const good = response.body.find((status: { geo_node_id: number }) => status.geo_node_id === reported.id);
      expect(good).toMatchObject({ healthy: true, health: 'Healthy', health_status: 'Healthy', db_replication_lag_seconds: 2, last_event_id: 40, cursor_last_event_id: 38, version: '10.8.0-ee', revision: 'abc1234' });
      expect(Math.abs(good.last_successful_status_check_timestamp - now())).toBeLessThanOrEqual(2);

      const none = response.body.find((status: { geo_node_id: number }) => status.geo_node_id === silent.id);
      expect(none).toMatchObject({
        healthy: false,
        health: 'No status report received from this node yet',
        health_status: 'Unhealthy',
        repositories_count: 0,
        repositories_synced_in_percentage: '0.00%',
        db_replication_lag_seconds: null,
        last_event_id: null,
        last_event_timestamp: null,
        cursor_last_event_id: null,
        last_successful_status_check_timestamp: null,
      });

      expect(await site.api(`/geo_nodes/${reported.id}/status`)).toMatchObject({ status: 200, body: { geo_node_id: reported.id, healthy: true } });
      expect(await site.api(`/geo_nodes/${silent.id}/status`)).toMatchObject({ status: 404, body: { message: '404 Status for Geo node Not Found' } });
      expect(await site.api('/geo_nodes/999999/status')).toMatchObject({ status: 404, body: { message: '404 GeoNode Not Found' } });
      expect(await site.api('/geo_nodes/abc/status')).toMatchObject({ status: 400, body: { message: 'id is invalid' } });
    });

    it('turns a report older than statusStaleSeconds unhealthy and says why', async () => {
      const stale = await registerSecondary();
      const reportedAt = Date.now() - 120_000;
      storeNodeStatus(site.site.db, stale.id, secondaryStatus(stale.id), reportedAt);
      const one = await site.api(`/geo_nodes/${stale.id}/status`);
      expect(one.body).toMatchObject({ healthy: false, health_status: 'Unhealthy', last_successful_status_check_timestamp: Math.floor(reportedAt / 1000) });
      expect(one.body.health).toMatch(/^Status check timed out: no report for 12\d seconds \(limit 60\)$/);
      const listed = (await site.api('/geo_nodes/status?per_page=100')).body.find((status: { geo_node_id: number }) => status.geo_node_id === stale.id);
      expect(listed).toEqual(one.body);
    });
  });

  describe('GET /geo_nodes/current/failures', () => {
    it('answers 403 on a primary, after validating type and failure_type', async () => {
      expect(await site.api('/geo_nodes/current/failures')).toMatchObject({ status: 403, body: { message: '403 Forbidden - Failures can only be requested from a secondary node' } });
      expect(await site.api('/geo_nodes/current/failures?type=wiki&failure_type=checksum_mismatch')).toMatchObject({ status: 403 });
      expect(await site.api('/geo_nodes/current/failures?type=blob')).toMatchObject({ status: 400, body: { message: 'type does not have a valid value' } });
      expect(await site.api('/geo_nodes/current/failures?failure_type=other')).toMatchObject({ status: 400, body: { message: 'failure_type does not have a valid value' } });
    });

    it('lists nothing for a secondary until blobs replicate, and 404 for an unknown current node', async () => {
      const secondary = await registerSecondary();
      const page = { page: 1, perPage: 20, offset: 0 };
      expect(listCurrentNodeFailures(site.site.db, secondary.name, { type: 'repository' }, page)).toEqual({ rows: [], total: 0 });
      expect(() => listCurrentNodeFailures(site.site.db, 'nowhere', {}, page)).toThrow('Geo node');
    });
  });

  describe('POST /geo_nodes', () => {
    it('creates a node with defaults; its name defaults to its URL', async () => {
      const before = lastEventId(site.site.db);
      const created = await site.api('/geo_nodes', { method: 'POST', body: { url: 'https://Defaults.example.com/' } });
      expect(created.status).toBe(201);
      expectGeoNode(created.body, site.url);
      expect(created.body).toMatchObject({
        name: 'https://defaults.example.com',
        url: 'https://defaults.example.com',
        primary: false,
        enabled: true,
        current: false,
        files_max_capacity: 10,
        repos_max_capacity: 25,
        clone_protocol: 'http',
      });
      // The write is captured for the secondaries like any other.
      expect(lastEventId(site.site.db)).toBeGreaterThan(before);
      expect((await site.api(`/geo_nodes/${created.body.id}`)).body).toEqual(created.body);
    });

    it('takes every setting, also from the query string with an empty body as python-gitlab sends them', async () => {
      const created = await site.api('/geo_nodes?url=http://q.example.com:3000&name=q-node&enabled=False&files_max_capacity=3&repos_max_capacity=0&clone_protocol=ssh', { method: 'POST', body: {} });
      expect(created).toMatchObject({
        status: 201,
        body: { name: 'q-node', url: 'http://q.example.com:3000', enabled: false, files_max_capacity: 3, repos_max_capacity: 0, clone_protocol: 'ssh' },
      });
    });

    it('validates', async () => {
      const taken = await createNode();
      const post = (body: Record<string, unknown>) => site.api('/geo_nodes', { method: 'POST', body });
      expect(await post({ name: 'x' })).toMatchObject({ status: 400, body: { message: 'url is missing' } });
      expect(await post({ url: 'ftp://x.example.com' })).toMatchObject({ status: 400, body: { message: { url: ['must be an absolute http or https URL'] } } });
      expect(await post({ url: 'not a url' })).toMatchObject({ status: 400, body: { message: { url: ['must be an absolute http or https URL'] } } });
      expect(await post({ url: 'https://second-primary.example.com', primary: true })).toMatchObject({ status: 400, body: { message: { primary: ['node already exists'] } } });
      expect(await post({ url: taken.url.toUpperCase() })).toMatchObject({ status: 400, body: { message: { url: ['has already been taken'] } } });
      expect(await post({ url: 'https://fresh.example.com', name: taken.name })).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
      expect(await post({ url: 'https://fresh.example.com', files_max_capacity: -1, repos_max_capacity: -2 })).toMatchObject({
        status: 400,
        body: { message: { files_max_capacity: ['must be greater than or equal to 0'], repos_max_capacity: ['must be greater than or equal to 0'] } },
      });
      expect(await post({ url: 'https://fresh.example.com', files_max_capacity: 'many' })).toMatchObject({ status: 400, body: { message: 'files_max_capacity is invalid' } });
      expect(await post({ url: 'https://fresh.example.com', clone_protocol: 'git' })).toMatchObject({ status: 400, body: { message: 'clone_protocol does not have a valid value' } });
      expect(await post({ url: 'https://fresh.example.com', enabled: 'maybe' })).toMatchObject({ status: 400, body: { message: 'enabled is invalid' } });
      expect((await site.api('/geo_nodes?per_page=100')).body.some((node: { url: string }) => node.url === 'https://fresh.example.com')).toBe(false);
    });
  });

  describe('PUT /geo_nodes/:id', () => {
    it('updates the settings it is given and keeps the rest', async () => {
      const node = await createNode({ files_max_capacity: 7 });
      const updated = await site.api(`/geo_nodes/${node.id}`, {
        method: 'PUT',
        body: { enabled: false, repos_max_capacity: 4, clone_protocol: 'ssh', url: 'https://moved.example.com', name: `${node.name}-renamed` },
      });
      expect(updated.status).toBe(200);
      expectGeoNode(updated.body, site.url);
      expect(updated.body).toMatchObject({ id: node.id, name: `${node.name}-renamed`, url: 'https://moved.example.com', enabled: false, files_max_capacity: 7, repos_max_capacity: 4, clone_protocol: 'ssh', primary: false });
      expect((await site.api(`/geo_nodes/${node.id}`)).body).toEqual(updated.body);
      expect(await site.api(`/geo_nodes/${node.id}`, { method: 'PUT', body: { primary: true } })).toMatchObject({ status: 200, body: { primary: false } });
    });

    it('validates, keeps the primary enabled and named, and answers 404 and 400 for bad ids', async () => {
      const node = await createNode();
      const other = await createNode();
      const put = (id: number, body: Record<string, unknown>, headers?: Record<string, string>) => site.api(`/geo_nodes/${id}`, { method: 'PUT', body, headers });
      expect(await put(node.id, { url: other.url })).toMatchObject({ status: 400, body: { message: { url: ['has already been taken'] } } });
      expect(await put(node.id, { name: other.name })).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
      expect(await put(node.id, { name: '' })).toMatchObject({ status: 400, body: { message: { name: ["can't be blank"] } } });
      expect(await put(node.id, { url: 'mailto:a@b.c' })).toMatchObject({ status: 400, body: { message: { url: ['must be an absolute http or https URL'] } } });
      expect(await put(node.id, { repos_max_capacity: -1 })).toMatchObject({ status: 400, body: { message: { repos_max_capacity: ['must be greater than or equal to 0'] } } });
      expect(await put(primaryId, { enabled: false })).toMatchObject({ status: 400, body: { message: { enabled: ['Geo primary node cannot be disabled'] } } });
      expect((await put(primaryId, { name: 'renamed-primary' })).body.message.name[0]).toMatch(/^cannot be changed/);
      // A write forwarded by a secondary cannot rename that secondary's own node.
      expect((await put(node.id, { name: 'renamed' }, { 'x-geoforge-forwarded-by': node.name })).body.message.name[0]).toMatch(/^cannot be changed/);
      expect(await put(primaryId, { files_max_capacity: 12 })).toMatchObject({ status: 200, body: { files_max_capacity: 12, primary: true, current: true } });
      expect(await put(999999, { enabled: true })).toMatchObject({ status: 404, body: { message: '404 GeoNode Not Found' } });
      expect(await site.api('/geo_nodes/abc', { method: 'PUT', body: {} })).toMatchObject({ status: 400, body: { message: 'id is invalid' } });
    });
  });

  describe('DELETE /geo_nodes/:id', () => {
    it('removes a secondary and its stored status', async () => {
      const secondary = await registerSecondary();
      await reportStatus(secondary.name, secondaryStatus(secondary.id));
      const response = await site.api(`/geo_nodes/${secondary.id}`, { method: 'DELETE' });
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect((await site.api(`/geo_nodes/${secondary.id}`)).status).toBe(404);
      expect(site.site.db.prepare('SELECT count(*) FROM geo_node_statuses WHERE geo_node_id = ?').pluck().get(secondary.id)).toBe(0);
      expect((await site.api('/geo_nodes/status?per_page=100')).body.map((status: { geo_node_id: number }) => status.geo_node_id)).not.toContain(secondary.id);
    });

    it('refuses the primary and the node serving the request', async () => {
      expect(await site.api(`/geo_nodes/${primaryId}`, { method: 'DELETE' })).toMatchObject({ status: 400, body: { message: 'The primary node cannot be removed' } });
      const secondary = await registerSecondary();
      expect(await site.api(`/geo_nodes/${secondary.id}`, { method: 'DELETE', headers: { 'x-geoforge-forwarded-by': secondary.name } })).toMatchObject({
        status: 400,
        body: { message: 'The current node cannot be removed: it is the node serving this request' },
      });
      expect(await site.api('/geo_nodes/999999', { method: 'DELETE' })).toMatchObject({ status: 404, body: { message: '404 GeoNode Not Found' } });
      expect((await site.api(`/geo_nodes/${primaryId}`)).status).toBe(200);
    });
  });

  describe('POST /geo_nodes/:id/repair', () => {
    it('asks a secondary for a full re-sync', async () => {
      const secondary = await registerSecondary();
      const before = new Date().toISOString();
      const response = await site.api(`/geo_nodes/${secondary.id}/repair`, { method: 'POST', body: {} });
      expect(response.status).toBe(201);
      expectGeoNode(response.body, site.url);
      expect(response.body).toMatchObject({ id: secondary.id, name: secondary.name, primary: false });
      expect(findGeoNode(site.site.db, secondary.id)!.resync_requested_at! >= before).toBe(true);
    });

    it('refuses the primary and answers 404 for an unknown node', async () => {
      expect(await site.api(`/geo_nodes/${primaryId}/repair`, { method: 'POST' })).toMatchObject({ status: 400, body: { message: 'The primary node cannot be re-synced' } });
      expect(findGeoNode(site.site.db, primaryId)!.resync_requested_at).toBeNull();
      expect(await site.api('/geo_nodes/999999/repair', { method: 'POST' })).toMatchObject({ status: 404, body: { message: '404 GeoNode Not Found' } });
    });
  });
});
