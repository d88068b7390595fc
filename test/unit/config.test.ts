import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

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
  ])('names the bad setting: %j', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(new ConfigError(message));
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
