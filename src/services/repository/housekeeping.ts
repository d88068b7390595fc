import type { ProjectRow } from '../../db/tables/projects.js';
import { AppError, conflict } from '../../errors.js';
import { git, repositoryOf } from '../../git/in-repository.js';
import type { SiteContext } from '../../site-context.js';

/** The `git gc` runs of this process, by site data dir and project id, until they end. */
const running = new Map<string, Promise<void>>();
/** A large repository's gc may take long; past this it is killed (the next one starts over). */
const GC_TIMEOUT_MS = 30 * 60_000;

/**
 * POST /projects/:id/housekeeping (GitLab's Projects::HousekeepingService): the background worker
 * starts `git gc` on the project's repository and this returns; 409 while one is still running for
 * the project (GitLab's lease), whichever request worker is asked; 503 while the background worker
 * is not up to take it. gc rewrites packs, never refs, so no Geo event follows.
 */
export async function startHousekeeping(ctx: SiteContext, project: ProjectRow): Promise<void> {
  // Only the background worker answers: the others have no answerer, and their refusals are left out.
  const [started] = await ctx.bus.gather<boolean>('housekeeping', project.id);
  if (started === undefined) throw new AppError('unavailable', 'Housekeeping could not be started: the background worker is restarting. Try again later.');
  if (!started) throw conflict('Somebody already triggered housekeeping for this project and it is still running');
}

/** The background worker's side: starts gc unless one runs for the project; whether it started. */
export function housekeepingAnswerer(ctx: SiteContext): (projectId: unknown) => boolean {
  return (projectId) => {
    const key = `${ctx.config.dataDir}\0${String(projectId)}`;
    if (running.has(key)) return false;
    const done = git(repositoryOf(ctx, { id: projectId as number }), ['gc', '--quiet'], { timeoutMs: GC_TIMEOUT_MS })
      .then(() => undefined)
      .catch((error: unknown) => ctx.log.warn({ err: error, project_id: projectId }, 'housekeeping (git gc) failed'))
      .finally(() => running.delete(key));
    running.set(key, done);
    return true;
  };
}

/** Resolves once every `git gc` this site started has ended: a stopping site waits, so its data dir can go. */
export async function settleHousekeeping(ctx: SiteContext): Promise<void> {
  const prefix = `${ctx.config.dataDir}\0`;
  await Promise.all([...running].filter(([key]) => key.startsWith(prefix)).map(([, done]) => done));
}
