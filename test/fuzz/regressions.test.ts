import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** The 500s the route fuzzer (routes.test.ts) found, one request each, fixed at their cause. */
let site: TestSite;
let project: { id: number };

beforeAll(async () => {
  site = await startSite();
  project = await createProject(site, { initialize_with_readme: true });
});
afterAll(() => site.stop());

describe('fuzzer regressions', () => {
  it('a tag name with a NUL byte is no tag (404), not a git spawn error (seed 7, #1524)', async () => {
    const response = await site.api(`/projects/${project.id}/repository/tags/a%00b`);
    expect(response.status, response.text).toBe(404);
    expect(response.body).toEqual({ message: '404 Tag Not Found' });
  });
});
