import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'ldapts';
import type { LdapConfig } from '../../src/config.js';
import { freePort, waitFor } from './multisite.js';

const run = promisify(execFile);

export const LDAP_BASE = 'dc=example,dc=org';
const ADMIN_DN = `cn=admin,${LDAP_BASE}`;
const ADMIN_PASSWORD = 'slapd-test-secret';

export interface TestSlapd {
  /** What GEOFORGE_LDAP_* would say for this server. */
  readonly config: LdapConfig;
  /** A client bound as the root DN, to seed and change the directory. */
  readonly admin: Client;
  stop(): Promise<void>;
}

/** slapd and slapadd live in /usr/sbin on Debian, which a non-root PATH may leave out. */
function binary(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin'];
  const found = dirs.map((dir) => path.join(dir, name)).find((file) => existsSync(file));
  if (!found) throw new Error(`${name} not found: install the Debian package slapd`);
  return found;
}

/**
 * A real OpenLDAP server of its own: a cn=config directory built with slapadd from generated
 * LDIF, an mdb database in a temp dir, suffix dc=example,dc=org with ou=people and ou=groups,
 * listening on a free loopback port until stop().
 */
export async function startSlapd(): Promise<TestSlapd> {
  const dir = await mkdtemp(path.join(tmpdir(), 'geoforge-slapd-'));
  const configDir = path.join(dir, 'slapd.d');
  const dbDir = path.join(dir, 'db');
  await mkdir(configDir);
  await mkdir(dbDir);
  const schemas = ['core', 'cosine', 'inetorgperson', 'nis'].map((name) => `include: file:///etc/ldap/schema/${name}.ldif`).join('\n');
  await writeFile(
    path.join(dir, 'config.ldif'),
    `dn: cn=config
objectClass: olcGlobal
cn: config
olcPidFile: ${path.join(dir, 'slapd.pid')}

dn: cn=module{0},cn=config
objectClass: olcModuleList
cn: module{0}
olcModulePath: /usr/lib/ldap
olcModuleLoad: back_mdb

dn: cn=schema,cn=config
objectClass: olcSchemaConfig
cn: schema

${schemas}

dn: olcDatabase={-1}frontend,cn=config
objectClass: olcDatabaseConfig
objectClass: olcFrontendConfig
olcDatabase: {-1}frontend

dn: olcDatabase={0}config,cn=config
objectClass: olcDatabaseConfig
olcDatabase: {0}config

dn: olcDatabase={1}mdb,cn=config
objectClass: olcDatabaseConfig
objectClass: olcMdbConfig
olcDatabase: {1}mdb
olcSuffix: ${LDAP_BASE}
olcDbDirectory: ${dbDir}
olcRootDN: ${ADMIN_DN}
olcRootPW: ${ADMIN_PASSWORD}
olcDbMaxSize: 67108864
`,
  );
  await run(binary('slapadd'), ['-n0', '-F', configDir, '-l', path.join(dir, 'config.ldif')]);

  const port = await freePort();
  const url = `ldap://127.0.0.1:${port}`;
  let output = '';
  const server: ChildProcess = spawn(binary('slapd'), ['-d', '0', '-h', `${url}/`, '-F', configDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));

  const admin = new Client({ url, connectTimeout: 2000 });
  const stop = async () => {
    await admin.unbind().catch(() => undefined);
    if (server.exitCode === null) server.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (server.exitCode !== null) throw new Error(`slapd exited with ${server.exitCode}: ${output}`);
        await admin.bind(ADMIN_DN, ADMIN_PASSWORD);
        return true;
      },
      { timeoutMs: 10_000, message: 'slapd to accept a bind' },
    );
    await admin.add(LDAP_BASE, { objectClass: ['dcObject', 'organization'], dc: 'example', o: 'Example' });
    await admin.add(`ou=people,${LDAP_BASE}`, { objectClass: 'organizationalUnit', ou: 'people' });
    await admin.add(`ou=groups,${LDAP_BASE}`, { objectClass: 'organizationalUnit', ou: 'groups' });
  } catch (error) {
    await stop();
    throw error;
  }
  return { config: { url, bindDn: ADMIN_DN, password: ADMIN_PASSWORD, base: LDAP_BASE }, admin, stop };
}

/** The DN of a person entry under ou=people. */
const personDn = (uid: string): string => `uid=${uid},ou=people,${LDAP_BASE}`;
/** The DN of a group entry under ou=groups. */
export const groupDn = (cn: string): string => `cn=${cn},ou=groups,${LDAP_BASE}`;

export async function addPerson(slapd: TestSlapd, uid: string): Promise<string> {
  await slapd.admin.add(personDn(uid), { objectClass: 'inetOrgPerson', uid, cn: uid, sn: uid, mail: `${uid}@example.org` });
  return personDn(uid);
}

/** A groupOfNames; the schema wants at least one member, so an empty group holds its own DN. */
export async function addGroupOfNames(slapd: TestSlapd, cn: string, memberDns: string[]): Promise<void> {
  await slapd.admin.add(groupDn(cn), { objectClass: 'groupOfNames', cn, member: memberDns.length ? memberDns : [groupDn(cn)] });
}
