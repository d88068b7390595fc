import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaults, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('gives the embedded defaults', () => {
    const config = loadConfig({ env: {} });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8080, role: 'primary', edition: 'ee', externalUrl: null });
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('layers a config file under GEOFORGE_* variables', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'geoforge-config-')), 'site.json');
    writeFileSync(file, JSON.stringify({ port: 9000, edition: 'ce', externalUrl: 'https://git.example.com/' }));
    const config = loadConfig({ file, env: { GEOFORGE_PORT: '9100' } });
    expect(config).toMatchObject({ port: 9100, edition: 'ce', externalUrl: 'https://git.example.com' });
  });

  it.each([
    [{ GEOFORGE_PORT: 'abc' }, 'GEOFORGE_PORT: expected 0-65535, got "abc"'],
    [{ GEOFORGE_PORT: '70000' }, 'GEOFORGE_PORT: expected 0-65535, got "70000"'],
    [{ GEOFORGE_ROLE: 'tertiary' }, 'GEOFORGE_ROLE: expected one of primary, secondary, got "tertiary"'],
    [{ GEOFORGE_ROLE: 'secondary' }, 'GEOFORGE_PRIMARY_URL: required when GEOFORGE_ROLE is secondary'],
    [{ GEOFORGE_EXTERNAL_URL: 'not a url' }, 'GEOFORGE_EXTERNAL_URL: expected an absolute URL, got "not a url"'],
    [{ GEOFORGE_ROOT_TOKEN: 'short' }, 'GEOFORGE_ROOT_TOKEN: expected at least 20 characters'],
    [{ GEOFORGE_ROOT_PASSWORD: 'short' }, 'GEOFORGE_ROOT_PASSWORD: expected 8 to 128 characters'],
    [{ GEOFORGE_GEO_EVENT_BATCH_SIZE: '0' }, 'GEOFORGE_GEO_EVENT_BATCH_SIZE: expected a whole number from 1 to 100000, got "0"'],
    [{ GEOFORGE_LDAP_URL: 'ldap://127.0.0.1:389' }, 'GEOFORGE_LDAP_BASE: required when GEOFORGE_LDAP_URL is set'],
    [{ GEOFORGE_API_LIMIT: '-1' }, 'GEOFORGE_API_LIMIT: expected a whole number from 0 to 100000, got "-1"'],
    [{ GEOFORGE_API_QUEUE_DURATION: '0' }, 'GEOFORGE_API_QUEUE_DURATION: expected a whole number from 1 to 3600000, got "0"'],
    [{ GEOFORGE_GIT_UPLOAD_PACK_QUEUE_LIMIT: 'many' }, 'GEOFORGE_GIT_UPLOAD_PACK_QUEUE_LIMIT: expected a whole number from 0 to 1000000, got "many"'],
  ])('names the bad setting: %j', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(new ConfigError(message));
  });

  it('reads each limiter of admission control from its keys, a file under the variables, and keeps the defaults of the rest', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'geoforge-config-')), 'site.json');
    writeFileSync(file, JSON.stringify({ apiLimit: 8, apiQueueLimit: 0, gitArchiveQueueDuration: 250 }));
    const config = loadConfig({ file, env: { GEOFORGE_API_LIMIT: '12', GEOFORGE_GIT_RECEIVE_PACK_LIMIT: '0' } });
    expect(config.admission.api).toEqual({ limit: 12, queueLimit: 0, queueTimeoutMs: defaults.admission.api.queueTimeoutMs });
    expect(config.admission.receivePack).toEqual({ ...defaults.admission.receivePack, limit: 0 });
    expect(config.admission.archive).toEqual({ ...defaults.admission.archive, queueTimeoutMs: 250 });
    expect(config.admission.uploadPack).toEqual(defaults.admission.uploadPack);
  });

  it('rejects unknown keys and broken JSON in a config file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'geoforge-config-'));
    const unknown = path.join(dir, 'unknown.json');
    writeFileSync(unknown, JSON.stringify({ prot: 1 }));
    expect(() => loadConfig({ file: unknown, env: {} })).toThrow(/unknown setting prot/);
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{');
    expect(() => loadConfig({ file: broken, env: {} })).toThrow(/not valid JSON/);
  });
});
