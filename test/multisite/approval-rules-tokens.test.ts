import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readsTheSame, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Approval rules and access tokens replicate (issues 25 and 26): rules and tokens written through
 * the primary, or through a secondary that forwards the write, list the same on the secondary, and
 * an access token made on the primary authenticates its bot on the secondary.
 */
describe('multi-site approval rules and access tokens', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  const sameOnBoth = (path: string, as?: string | null) => readsTheSame(primary, secondary, path, 200, { as });

  it('rules and tokens written through either site read the same on the secondary, and a token works there', async () => {
    const suffix = randomUUID().slice(0, 8);
    const project = await primary.api('/projects', { method: 'POST', body: { name: `rules-${suffix}`, visibility: 'private' } });
    expect(project.status, project.text).toBe(201);
    const id = project.body.id;
    const reviewer = await primary.api('/users', { method: 'POST', body: { username: `rev${suffix}`, email: `rev${suffix}@example.com`, name: 'Reviewer', password: 'password123' } });
    expect(reviewer.status, reviewer.text).toBe(201);
    expect((await primary.api(`/projects/${id}/members`, { method: 'POST', body: { user_id: reviewer.body.id, access_level: 30 } })).status).toBe(201);

    const onPrimary = await primary.api(`/projects/${id}/approval_rules`, { method: 'POST', body: { name: 'Reviewers', approvals_required: 1, user_ids: [reviewer.body.id] } });
    expect(onPrimary.status, onPrimary.text).toBe(201);
    // A write sent to the secondary is forwarded and lands on the primary.
    const throughSecondary = await secondary.api(`/projects/${id}/approval_rules`, { method: 'POST', body: { name: 'Anyone', approvals_required: 2 } });
    expect(throughSecondary.status, throughSecondary.text).toBe(201);
    expect((await primary.api(`/projects/${id}/approval_rules/${throughSecondary.body.id}`)).body).toMatchObject({ name: 'Anyone', rule_type: 'any_approver', approvals_required: 2 });
    const rules = await sameOnBoth(`/projects/${id}/approval_rules`);
    expect(rules.body.map((rule: any) => [rule.name, rule.users.map((user: any) => user.id)])).toEqual([
      ['Reviewers', [reviewer.body.id]],
      ['Anyone', []],
    ]);
    await sameOnBoth(`/projects/${id}/approval_rules/${onPrimary.body.id}`);

    const token = await primary.api(`/projects/${id}/access_tokens`, { method: 'POST', body: { name: 'ci', scopes: ['api'], access_level: 30 } });
    expect(token.status, token.text).toBe(201);
    const viaSecondary = await secondary.api(`/projects/${id}/access_tokens`, { method: 'POST', body: { name: 'deploy', scopes: ['read_api'], access_level: 20 } });
    expect(viaSecondary.status, viaSecondary.text).toBe(201);
    expect((await primary.api(`/projects/${id}/access_tokens/${viaSecondary.body.id}`)).body).toMatchObject({ name: 'deploy', access_level: 20 });
    const listed = await sameOnBoth(`/projects/${id}/access_tokens`);
    expect(listed.body.map((t: any) => [t.name, t.access_level])).toEqual([
      ['deploy', 20],
      ['ci', 30],
    ]);
    // The token made on the primary authenticates its bot on the secondary, which serves the read itself.
    const bot = await waitFor(async () => {
      const me = await secondary.api('/user', { as: token.body.token });
      return me.status === 200 && me.body;
    }, { timeoutMs: 30_000, message: 'the bot signs in on the secondary' });
    expect(bot).toMatchObject({ id: token.body.user_id, bot: true });
    expect((await secondary.api(`/projects/${id}`, { as: token.body.token })).status).toBe(200);
    await sameOnBoth(`/projects/${id}/members/${token.body.user_id}`);

    // Revoked on the primary, the token stops working on the secondary too.
    expect((await primary.api(`/projects/${id}/access_tokens/${token.body.id}`, { method: 'DELETE' })).status).toBe(204);
    await waitFor(async () => (await secondary.api('/user', { as: token.body.token })).status === 401, { timeoutMs: 30_000, message: 'the revoked token refused on the secondary' });
  });
});
