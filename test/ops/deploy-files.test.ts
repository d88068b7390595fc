import { execFile, execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const run = promisify(execFile);
const DEPLOY = path.resolve('deploy');
const UNITS = ['geoforge-primary.service', 'geoforge-secondary.service', 'geoforge-backup.service', 'geoforge-backup.timer'];

function available(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('deploy/: systemd units, role configurations', () => {
  it.skipIf(!available('systemd-analyze'))('every unit passes systemd-analyze verify without a warning', async () => {
    for (const unit of UNITS) {
      // Run from the unit's directory so the timer finds its service beside it.
      const { stdout, stderr } = await run('systemd-analyze', ['verify', '--man=no', `./${unit}`], { cwd: path.join(DEPLOY, 'systemd') }).catch(
        (error: { stdout: string; stderr: string }) => ({ stdout: error.stdout, stderr: `failed: ${error.stderr}` }),
      );
      expect(`${stdout}${stderr}`, unit).toBe('');
    }
  });

  for (const role of ['primary', 'secondary'] as const) {
    it(`the ${role} unit runs hardened, restarts on failure and reads deploy/etc/${role}.json, a valid ${role} configuration`, async () => {
      const unit = await readFile(path.join(DEPLOY, 'systemd', `geoforge-${role}.service`), 'utf8');
      for (const line of ['User=geoforge', 'ProtectSystem=strict', 'ReadWritePaths=/var/lib/geoforge', 'Restart=on-failure', 'RestartPreventExitStatus=2', 'LimitNOFILE=65536', 'NoNewPrivileges=yes']) {
        expect(unit.split('\n'), `${role}: ${line}`).toContain(line);
      }
      expect(unit).toMatch(new RegExp(`^ExecStart=/usr/bin/node .*dist/cli\\.js serve --config /etc/geoforge/${role}\\.json$`, 'm'));
      const config = loadConfig({ file: path.join(DEPLOY, 'etc', `${role}.json`), env: { GEOFORGE_GEO_SECRET: 'a-geo-secret-of-32-characters-00' } });
      expect(config.role).toBe(role);
      expect(config.dataDir).toBe('/var/lib/geoforge');
      expect(config.externalUrl).toMatch(/^https:\/\//);
      if (role === 'secondary') expect(config.primaryUrl).toBe(loadConfig({ file: path.join(DEPLOY, 'etc', 'primary.json'), env: {} }).externalUrl);
    });
  }

  it('the backup unit backs up the primary with the CLI into the backups directory it may write', async () => {
    const unit = await readFile(path.join(DEPLOY, 'systemd', 'geoforge-backup.service'), 'utf8');
    expect(unit).toContain('dist/cli.js backup create --config /etc/geoforge/primary.json --output /var/backups/geoforge/');
    expect(unit).toMatch(/^ReadWritePaths=.*\/var\/backups\/geoforge/m);
  });
});
