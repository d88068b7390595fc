import type { ProjectRow } from '../../db/tables/projects.js';
import { conflict } from '../../errors.js';
import { git, repositoryOf } from '../../git/in-repository.js';
import type { SiteContext } from '../../site-context.js';

/** The `git gc` runs of this process, by site data dir and project id, until they end. */
const running = new Map<string, Promise<void>>();
/** A large repository's gc may take long; past this it is killed (the next one starts over). */
const GC_TIMEOUT_MS = 30 * 60_000;

/**
 * POST /projects/:id/housekeeping (GitLab's Projects::HousekeepingService): starts `git gc` on the
 * project's repository in the background and returns; 409 while one is still running for the
 * project (GitLab's lease). gc rewrites packs, never refs, so no Geo event follows. Resolves once
 * gc is started; `done` settles when it ends (tests wait on it).
 */
export function startHousekeeping(ctx: SiteContext, project: ProjectRow): { done: Promise<void> } {
  const key = `${ctx.config.dataDir}\0${project.id}`;
  if (running.has(key)) throw conflict('Somebody already triggered housekeeping for this project and it is still running');
  const done = git(repositoryOf(ctx, project), ['gc', '--quiet'], { timeoutMs: GC_TIMEOUT_MS })
    .then(() => undefined)
    .catch((error: unknown) => ctx.log.warn({ err: error, project_id: project.id }, 'housekeeping (git gc) failed'))
    .finally(() => running.delete(key));
  running.set(key, done);
  return { done };
}

/** Resolves once every `git gc` this site started has ended: a stopping site waits, so its data dir can go. */
export async function settleHousekeeping(ctx: SiteContext): Promise<void> {
  const prefix = `${ctx.config.dataDir}\0`;
  await Promise.all([...running].filter(([key]) => key.startsWith(prefix)).map(([, done]) => done));
}
