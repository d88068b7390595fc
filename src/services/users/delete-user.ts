import { inTransaction, type Db } from '../../db/connection.js';
import { projectsIn } from '../../db/tables/groups.js';
import { firstGroupSolelyOwnedBy } from '../../db/tables/members.js';
import { findUserNamespace } from '../../db/tables/namespaces.js';
import { findProjectById } from '../../db/tables/projects.js';
import { deleteUserRow } from '../../db/tables/users.js';
import type { SiteContext } from '../../site-context.js';
import { deleteGroup } from '../groups/removal.js';
import { deleteProject } from '../projects/projects.js';
import type { Actor } from './authentication.js';
import { removeTrackerContributions } from '../issuables/user-contributions.js';
import { moveContributionsToGhost } from './ghost-user.js';
import { getUser } from './users.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';

/**
 * Deletes a user as GitLab's Users::DestroyService does (SPEC: DELETE /users/:id). With
 * `hardDelete`, the groups the user solely owns go first, with their projects. The user's personal
 * projects go next, with their repositories, through the projects service: the user's namespace
 * cannot go while a project is in it. Then, in one transaction, the user's contributions move to
 * the ghost user (or, with `hardDelete`, go with the user through the author columns' cascades),
 * and the user row goes with the namespace, keys, emails, identities and tokens.
 */
export async function deleteUser(ctx: SiteContext, actor: Actor, id: number, options: { hardDelete: boolean; unmodifiedSince: number | null }): Promise<void> {
  assertUnmodifiedSince(options.unmodifiedSince, getUser(ctx.db, id).updated_at);
  for (let group = options.hardDelete ? firstGroupSolelyOwnedBy(ctx.db, id) : undefined; group; group = firstGroupSolelyOwnedBy(ctx.db, id)) {
    await deleteGroup(ctx, actor, group);
  }
  // A project created in the namespace meanwhile would block the user row: sweep until none is left.
  for (;;) {
    const namespace = findUserNamespace(ctx.db, id);
    const projects = namespace ? projectsIn(ctx.db, [namespace.id]) : [];
    if (!projects.length) break;
    for (const { id: projectId } of projects) {
      const project = findProjectById(ctx.db, projectId);
      if (project) await deleteProject(ctx.db, ctx.config.dataDir, ctx.blobs, actor, project);
    }
  }
  removeUserRecord(ctx.db, id, options);
}

/**
 * The last step of a deletion, once the user has no project left in their namespace: their
 * contributions move to the ghost user (or go with the user), and the user row goes.
 */
export function removeUserRecord(db: Db, id: number, options: { hardDelete: boolean }): void {
  inTransaction(db, () => {
    getUser(db, id);
    if (options.hardDelete) removeTrackerContributions(db, id);
    else moveContributionsToGhost(db, id);
    deleteUserRow(db, id);
  });
}
