import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { Fence } from '../../src/geo/fence.js';
import { createSite } from '../../src/server.js';
import { ROOT_TOKEN } from '../helpers/site.js';

const SECRET = 'role-test-geo-secret-0123';

describe('the persisted role at boot', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'geoforge-role-boot-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const config = (overrides: Record<string, unknown>) =>
    loadConfig({ overrides: { port: 0, dataDir, rootToken: ROOT_TOKEN, logLevel: 'silent', geoSecret: SECRET, ...overrides } });

  it('a promoted site boots as primary with the configuration it had, and refuses one naming another primary', async () => {
    // As `geo promote` leaves it: configured as a secondary of the old primary, persisted primary of epoch 1.
    const asSecondary = config({ role: 'secondary', primaryUrl: 'http://old-primary.example' });
    new Fence(asSecondary, null, pino({ level: 'silent' })).transition({ role: 'primary', primaryUrl: null, epoch: 1, epochPrimaryUrl: null, ownEpoch: 1, reason: 'promoted' });

    const site = await createSite(asSecondary);
    try {
      const url = await site.start();
      expect(site.ctx.config.role).toBe('primary');
      const readiness = await fetch(`${url}/-/readiness`);
      expect(await readiness.json()).toEqual({ status: 'ok', role: 'primary' });
      const created = await fetch(`${url}/api/v4/users`, {
        method: 'POST',
        headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'afterboot', email: 'afterboot@example.com', name: 'After', reset_password: true }),
      });
      expect(created.status).toBe(201);
      expect((await (await fetch(`${url}/-/metrics`)).text())).toMatch(/^geo_fencing_epoch 1$/m);
    } finally {
      await site.stop();
    }

    await expect(createSite(config({ role: 'secondary', primaryUrl: 'http://another.example' }))).rejects.toThrow(ConfigError);
    await expect(createSite(config({ role: 'secondary', primaryUrl: 'http://another.example' }))).rejects.toThrow(/configuration says secondary of http:\/\/another.example, but .*geo-role.json records primary/);
  });
});
