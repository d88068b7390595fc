import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite, type TestSite } from '../helpers/site.js';

describe('site boot', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site.stop());

  it('answers probes and the version', async () => {
    expect((await site.api('/-/liveness', { as: null })).status).toBe(200);
    expect((await site.api('/-/readiness', { as: null })).status).toBe(200);
    const version = await site.api('/version');
    expect(version.status).toBe(200);
    expect(version.body.version).toMatch(/^\d+\.\d+\.\d+-ee$/);
    expect(typeof version.body.revision).toBe('string');
    expect(version.headers['content-type']).toBe('application/json');
    expect((await site.api('/version', { as: null })).status).toBe(401);
  });
});
