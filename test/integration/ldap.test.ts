import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Attribute, Change } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncLdap } from '../../src/services/groups/ldap/sync.js';
import { createGroup, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';
import { addGroupOfNames, addPerson, groupDn, startSlapd, type TestSlapd } from '../helpers/slapd.js';

const run = promisify(execFile);

/** A private group owned by `owner`, who created it. */
async function ownedGroup(site: TestSite, owner: TestUser): Promise<number> {
  return (await createGroup(site, { visibility: 'private' }, owner.token)).id;
}

/** A member added by hand through the members API: LDAP sync leaves it alone. */
async function addMemberByHand(site: TestSite, groupId: number, user: TestUser, level: number): Promise<void> {
  const added = await site.api(`/groups/${groupId}/members`, { method: 'POST', body: { user_id: user.id, access_level: level } });
  if (added.status !== 201) throw new Error(`add member: ${added.status} ${added.text}`);
}

/** user id -> [access_level, ldap]: the `ldap` flag (who granted the membership) is not in the API. */
function membersOf(site: TestSite, groupId: number): Record<number, [number, number]> {
  const rows = site.site.db.prepare('SELECT user_id, access_level, ldap FROM group_members WHERE namespace_id = ?').all(groupId) as {
    user_id: number;
    access_level: number;
    ldap: number;
  }[];
  return Object.fromEntries(rows.map((row) => [row.user_id, [row.access_level, row.ldap]]));
}

const ldapUser = (site: TestSite, dn: string) => createUser(site, { provider: 'ldapmain', extern_uid: dn });

describe('LDAP group links and sync against a real slapd', () => {
  let slapd: TestSlapd;
  let site: TestSite;
  let owner: TestUser;
  beforeAll(async () => {
    slapd = await startSlapd();
    site = await startSite({ ldap: slapd.config });
    owner = await createUser(site);
  });
  afterAll(async () => {
    await site?.stop();
    await slapd?.stop();
  });

  const sync = (groupId: number, as?: string | null) => site.api(`/groups/${groupId}/ldap_sync`, { method: 'POST', body: {}, as });
  const link = (groupId: number, body: Record<string, unknown>, as?: string | null) => site.api(`/groups/${groupId}/ldap_group_links`, { method: 'POST', body, as });
  const setMembers = (cn: string, dns: string[]) =>
    slapd.admin.modify(groupDn(cn), new Change({ operation: 'replace', modification: new Attribute({ type: 'member', values: dns.length ? dns : [groupDn(cn)] }) }));

  it('adds members of linked LDAP groups, changes their level, removes them, and leaves hand-added members alone', async () => {
    const groupId = await ownedGroup(site, owner);
    const [aliceDn, bobDn, carolDn] = [await addPerson(slapd, 'alice'), await addPerson(slapd, 'bob'), await addPerson(slapd, 'carol')];
    await addGroupOfNames(slapd, 'devs', [aliceDn, bobDn]);
    await addGroupOfNames(slapd, 'leads', []);
    // The identity is spelled differently from the member value: DNs compare without case or spaces.
    const alice = await ldapUser(site, 'UID=Alice, ou=People,dc=example,dc=org');
    const bob = await ldapUser(site, bobDn);
    const carol = await ldapUser(site, carolDn);
    await addMemberByHand(site, groupId, carol, 20);
    const outsider = await createUser(site);

    expect(await link(groupId, { cn: 'devs', group_access: 30, provider: 'ldapmain' })).toMatchObject({ status: 201 });
    expect(await sync(groupId)).toMatchObject({ status: 202, text: '' });
    expect(membersOf(site, groupId)).toEqual({ [owner.id]: [50, 0], [alice.id]: [30, 1], [bob.id]: [30, 1], [carol.id]: [20, 0] });
    const synced = site.site.db.prepare('SELECT ldap_synced_at FROM namespaces WHERE id = ?').pluck().get(groupId) as string;
    expect(Date.now() - Date.parse(synced)).toBeLessThan(60_000);
    expect(membersOf(site, groupId)[outsider.id]).toBeUndefined();
    const listed = await site.api(`/groups/${groupId}/members?per_page=100`, { as: owner.token });
    expect(listed.body.find((member: { id: number }) => member.id === alice.id)).toMatchObject({ username: alice.username, access_level: 30 });

    // Access change: the link's level goes down; then alice is also in a group linked higher.
    expect(await site.api(`/groups/${groupId}/ldap_group_links/ldapmain/devs`, { method: 'DELETE' })).toMatchObject({ status: 204 });
    await link(groupId, { cn: 'devs', group_access: 20, provider: 'ldapmain' });
    await sync(groupId);
    expect(membersOf(site, groupId)).toMatchObject({ [alice.id]: [20, 1], [bob.id]: [20, 1] });
    await setMembers('leads', [aliceDn]);
    await link(groupId, { cn: 'leads', group_access: 40, provider: 'ldapmain' });
    await sync(groupId);
    expect(membersOf(site, groupId)).toMatchObject({ [alice.id]: [40, 1], [bob.id]: [20, 1] });

    // Removal: bob leaves devs and loses the membership LDAP gave him; carol, added by hand, stays.
    await setMembers('devs', [aliceDn]);
    await sync(groupId);
    expect(membersOf(site, groupId)).toEqual({ [owner.id]: [50, 0], [alice.id]: [40, 1], [carol.id]: [20, 0] });

    // A link under a provider this site does not sync grants nothing.
    await link(groupId, { cn: 'devs', group_access: 50, provider: 'ldapsecondary' });
    await sync(groupId);
    expect(membersOf(site, groupId)[alice.id]).toEqual([40, 1]);
  });

  it('reads posixGroup memberUid and groupOfUniqueNames uniqueMember too', async () => {
    const groupId = await ownedGroup(site, owner);
    const [ginaDn, hankDn] = [await addPerson(slapd, 'gina'), await addPerson(slapd, 'hank')];
    await slapd.admin.add(groupDn('posix'), { objectClass: 'posixGroup', cn: 'posix', gidNumber: '5000', memberUid: ['gina', 'nobody'] });
    await slapd.admin.add(groupDn('unique'), { objectClass: 'groupOfUniqueNames', cn: 'unique', uniqueMember: [`${hankDn}#'0101'B`] });
    const gina = await ldapUser(site, ginaDn);
    const hank = await ldapUser(site, hankDn);
    await link(groupId, { cn: 'posix', group_access: 20, provider: 'ldapmain' });
    await link(groupId, { cn: 'unique', group_access: 30, provider: 'ldapmain' });
    await link(groupId, { cn: 'no-such-group', group_access: 40, provider: 'ldapmain' });
    await sync(groupId);
    expect(membersOf(site, groupId)).toEqual({ [owner.id]: [50, 0], [gina.id]: [20, 1], [hank.id]: [30, 1] });
  });

  it('blocks a user whose entry left the directory (403 on unblock) and lifts the block when it is back', async () => {
    const groupId = await ownedGroup(site, owner);
    const daveDn = await addPerson(slapd, 'dave');
    await addGroupOfNames(slapd, 'ops', [daveDn]);
    const dave = await ldapUser(site, daveDn);
    await link(groupId, { cn: 'ops', group_access: 30, provider: 'ldapmain' });
    await sync(groupId);
    expect(membersOf(site, groupId)[dave.id]).toEqual([30, 1]);

    await slapd.admin.del(daveDn);
    await sync(groupId);
    expect((await site.api(`/users/${dave.id}`)).body).toMatchObject({ state: 'blocked' });
    expect(site.site.db.prepare('SELECT state FROM users WHERE id = ?').pluck().get(dave.id)).toBe('ldap_blocked');
    expect(await site.api(`/users/${dave.id}/unblock`, { method: 'POST' })).toMatchObject({ status: 403 });
    expect(await site.api(`/users/${dave.id}/block`, { method: 'POST' })).toMatchObject({ status: 403 });
    expect(await site.api('/user', { as: dave.token })).toMatchObject({ status: 401 });

    await addPerson(slapd, 'dave');
    await sync(groupId);
    expect((await site.api(`/users/${dave.id}`)).body).toMatchObject({ state: 'active' });
  });

  it('is for owners and administrators: 401 anonymous, 403 members, 404 when the group is not visible', async () => {
    const groupId = await ownedGroup(site, owner);
    const developer = await createUser(site);
    await addMemberByHand(site, groupId, developer, 30);
    const stranger = await createUser(site);
    expect(await sync(groupId, null)).toMatchObject({ status: 401 });
    expect(await sync(groupId, developer.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await sync(groupId, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await sync(groupId, owner.token)).toMatchObject({ status: 202 });
    expect(await sync(999_999)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await link(groupId, { cn: 'x', group_access: 30, provider: 'ldapmain' }, developer.token)).toMatchObject({ status: 403 });
    expect(await site.api(`/groups/${groupId}/ldap_group_links`, { as: developer.token })).toMatchObject({ status: 403 });
    expect(await site.api(`/groups/${groupId}/ldap_group_links/x`, { method: 'DELETE', as: developer.token })).toMatchObject({ status: 403 });
  });

  it('manages group links: required fields, levels, duplicates, cn with = , and spaces, delete by cn or provider', async () => {
    const groupId = await ownedGroup(site, owner);
    const cn = 'cn=Dev Team,ou=groups';
    for (const missing of ['cn', 'group_access', 'provider']) {
      const body: Record<string, unknown> = { cn, group_access: 30, provider: 'ldapmain' };
      delete body[missing];
      const message = missing === 'cn' ? 'cn, filter are missing, at least one parameter must be provided' : `${missing} is missing`;
      expect(await link(groupId, body)).toMatchObject({ status: 400, body: { message } });
    }
    expect(await link(groupId, { cn, group_access: 15, provider: 'ldapmain' })).toMatchObject({
      status: 400,
      body: { message: 'group_access does not have a valid value' },
    });
    expect(await link(groupId, { cn, group_access: 60, provider: 'ldapmain' })).toMatchObject({ status: 400 });

    const created = await link(groupId, { cn, group_access: 50, provider: 'ldapmain' }, owner.token);
    expect(created).toMatchObject({ status: 201 });
    expect(created.body).toEqual({ cn, group_access: 50, provider: 'ldapmain', filter: null });
    expect(await link(groupId, { cn, group_access: 30, provider: 'ldapmain' })).toMatchObject({
      status: 400,
      body: { message: { cn: ['has already been taken'] } },
    });
    expect(await link(groupId, { cn, group_access: 10, provider: 'ldapalt' })).toMatchObject({ status: 201 });
    expect(await link(groupId, { cn: 'other', group_access: '20', provider: 'ldapmain' })).toMatchObject({ status: 201 });
    expect((await site.api(`/groups/${groupId}/ldap_group_links`, { as: owner.token })).body).toEqual([
      { cn, group_access: 50, provider: 'ldapmain', filter: null },
      { cn, group_access: 10, provider: 'ldapalt', filter: null },
      { cn: 'other', group_access: 20, provider: 'ldapmain', filter: null },
    ]);

    const encoded = encodeURIComponent(cn);
    expect(await site.api(`/groups/${groupId}/ldap_group_links/${encoded}`, { method: 'DELETE' })).toMatchObject({ status: 204, text: '' });
    expect(await site.api(`/groups/${groupId}/ldap_group_links/${encoded}`, { method: 'DELETE' })).toMatchObject({
      status: 404,
      body: { message: '404 Group Link Not Found' },
    });
    expect(await site.api(`/groups/${groupId}/ldap_group_links/ldapalt/other`, { method: 'DELETE' })).toMatchObject({ status: 404 });
    expect(await site.api(`/groups/${groupId}/ldap_group_links/ldapmain/other`, { method: 'DELETE' })).toMatchObject({ status: 204 });
    expect((await site.api(`/groups/${groupId}/ldap_group_links`)).body).toEqual([]);

    await link(groupId, { cn: 'q', group_access: 30, provider: 'ldapmain' });
    expect(await site.api(`/groups/${groupId}/ldap_group_links?cn=q&provider=ldapmain`, { method: 'DELETE' })).toMatchObject({ status: 204 });
    expect(await site.api(`/groups/999999/ldap_group_links`)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
  });

  it('links by filter: the entries the filter matches are members; filter links are validated, unique and deleted by provider and filter', async () => {
    const groupId = await ownedGroup(site, owner);
    const [ivyDn, jackDn] = [await addPerson(slapd, 'ivy'), await addPerson(slapd, 'jack')];
    const ivy = await ldapUser(site, ivyDn);
    const jack = await ldapUser(site, jackDn);
    const filter = '(|(uid=ivy)(uid=jack))';
    const created = await link(groupId, { filter, group_access: 30, provider: 'ldapmain' });
    expect(created).toMatchObject({ status: 201, body: { cn: null, filter, group_access: 30, provider: 'ldapmain' } });
    expect(await sync(groupId)).toMatchObject({ status: 202 });
    expect(membersOf(site, groupId)).toEqual({ [owner.id]: [50, 0], [ivy.id]: [30, 1], [jack.id]: [30, 1] });

    expect(await link(groupId, { filter, group_access: 20, provider: 'ldapmain' })).toMatchObject({ status: 400, body: { message: { filter: ['has already been taken'] } } });
    expect(await link(groupId, { filter: '(uid=ivy', group_access: 20, provider: 'ldapmain' })).toMatchObject({ status: 400, body: { message: { filter: ['must be a valid filter'] } } });
    expect(await link(groupId, { cn: 'devs', filter, group_access: 20, provider: 'ldapmain' })).toMatchObject({ status: 400, body: { message: 'cn, filter are mutually exclusive' } });
    // A narrower filter at a higher level: ivy matches both and holds the higher.
    expect(await link(groupId, { filter: '(uid=ivy)', group_access: 40, provider: 'ldapmain' })).toMatchObject({ status: 201 });
    await sync(groupId);
    expect(membersOf(site, groupId)).toMatchObject({ [ivy.id]: [40, 1], [jack.id]: [30, 1] });

    const remove = (query: string) => site.api(`/groups/${groupId}/ldap_group_links?${query}`, { method: 'DELETE' });
    expect(await remove(`provider=ldapalt&filter=${encodeURIComponent(filter)}`)).toMatchObject({ status: 404, body: { message: '404 Group Link Not Found' } });
    expect(await remove('provider=ldapmain')).toMatchObject({ status: 400, body: { message: 'cn, filter are missing, at least one parameter must be provided' } });
    expect(await remove(`provider=ldapmain&filter=${encodeURIComponent(filter)}`)).toMatchObject({ status: 204 });
    await sync(groupId);
    expect(membersOf(site, groupId)).toEqual({ [owner.id]: [50, 0], [ivy.id]: [40, 1] });
    expect((await site.api(`/groups/${groupId}/ldap_group_links`)).body).toEqual([{ cn: null, filter: '(uid=ivy)', group_access: 40, provider: 'ldapmain' }]);
  });

  it('changes nothing when the directory cannot be reached', async () => {
    const groupId = await ownedGroup(site, owner);
    const erinDn = await addPerson(slapd, 'erin');
    await addGroupOfNames(slapd, 'erins', [erinDn]);
    const erin = await ldapUser(site, erinDn);
    await link(groupId, { cn: 'erins', group_access: 30, provider: 'ldapmain' });
    await sync(groupId);
    const before = membersOf(site, groupId);
    expect(before[erin.id]).toEqual([30, 1]);
    await expect(syncLdap(site.site.db, { ...slapd.config, url: 'ldap://127.0.0.1:1' }, { groupId })).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(syncLdap(site.site.db, { ...slapd.config, password: 'wrong' }, { groupId })).rejects.toMatchObject({ kind: 'unavailable' });
    expect(membersOf(site, groupId)).toEqual(before);
  });

  it('syncs every linked group from the CLI: geoforge ldap sync [--group ID]', async () => {
    const groupId = await ownedGroup(site, owner);
    const frankDn = await addPerson(slapd, 'frank');
    await addGroupOfNames(slapd, 'cli', [frankDn]);
    const frank = await ldapUser(site, frankDn);
    await link(groupId, { cn: 'cli', group_access: 40, provider: 'ldapmain' });
    const env = {
      ...process.env,
      GEOFORGE_DATA_DIR: site.dataDir,
      GEOFORGE_LDAP_URL: slapd.config.url,
      GEOFORGE_LDAP_BIND_DN: slapd.config.bindDn,
      GEOFORGE_LDAP_PASSWORD: slapd.config.password,
      GEOFORGE_LDAP_BASE: slapd.config.base,
    };
    const cli = path.resolve('dist/cli.js');
    const one = await run('node', [cli, 'ldap', 'sync', '--group', String(groupId)], { env });
    expect(one.stdout).toMatch(/^synced 1 group\(s\): 1 added/);
    expect(membersOf(site, groupId)[frank.id]).toEqual([40, 1]);
    const all = await run('node', [cli, 'ldap', 'sync'], { env });
    expect(all.stdout).toMatch(/^synced \d+ group\(s\)/);
    const unconfigured = await run('node', [cli, 'ldap', 'sync'], { env: { ...env, GEOFORGE_LDAP_URL: '' } }).catch((error: { code: number; stderr: string }) => error);
    expect(unconfigured).toMatchObject({ code: 2 });
    expect((unconfigured as { stderr: string }).stderr).toContain('GEOFORGE_LDAP_URL');
  });
});

describe('LDAP sync without LDAP configured', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site.stop());

  it('answers 404, as GitLab does when group sync is not configured', async () => {
    const owner = await createUser(site);
    const groupId = await ownedGroup(site, owner);
    expect(await site.api(`/groups/${groupId}/ldap_sync`, { method: 'POST', body: {}, as: owner.token })).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
  });
});
