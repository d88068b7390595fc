import { inTransaction } from '../../db/connection.js';
import { milestoneIdsWithTitle } from '../../db/tables/milestones.js';
import type { Page } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { insertLinkRow, type ReleaseLinkValues } from '../../db/tables/release-links.js';
import { setReleaseMilestones } from '../../db/tables/release-milestones.js';
import { deleteReleaseById, findReleaseRow, insertReleaseRow, listReleaseRows, updateReleaseRow, type ReleaseOrder, type ReleaseRow } from '../../db/tables/releases.js';
import type { ReleaseView } from '../../entities/releases.js';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { repositoryOf } from '../../git/in-repository.js';
import { listTags } from '../../git/tags.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { projectMilestoneScope } from '../issuables/scopes.js';
import { refPolicyFor } from '../repository/ref-policy.js';
import { createTag } from '../repository/tags.js';
import type { Actor } from '../users/authentication.js';
import { fireReleaseHooks } from './hooks.js';
import { assertDistinctLinks, type LinkInput, linkValues } from './link-values.js';
import { mayCreateTag, PROTECTED_TAG_REFUSAL } from './tag-access.js';
import { releaseView, releaseViews } from './views.js';

export async function listReleases(ctx: SiteContext, project: ProjectRow, actor: Actor | null, order: ReleaseOrder, page: Page) {
  const { rows, total } = listReleaseRows(ctx.db, project.id, order, page);
  return { rows: await releaseViews(ctx, project, actor, rows), total };
}

/** The release of a tag, or 404. */
export function findRelease(ctx: SiteContext, project: ProjectRow, tag: string): ReleaseRow {
  const release = findReleaseRow(ctx.db, project.id, tag);
  if (!release) throw notFound('Release');
  return release;
}

export async function getRelease(ctx: SiteContext, project: ProjectRow, actor: Actor | null, tag: string): Promise<ReleaseView> {
  return releaseView(ctx, project, actor, findRelease(ctx, project, tag));
}

/** The latest release by release time (GitLab's permalink/latest), or 404. */
export function latestRelease(ctx: SiteContext, project: ProjectRow): ReleaseRow {
  const release = listReleaseRows(ctx.db, project.id, { by: 'released_at', sort: 'desc' }, { page: 1, perPage: 1, offset: 0 }).rows[0];
  if (!release) throw notFound('Release');
  return release;
}

export interface ReleaseInput {
  readonly tag: string;
  readonly ref?: string;
  readonly tagMessage?: string;
  readonly name?: string;
  readonly description?: string;
  readonly releasedAt?: string;
  readonly milestones?: readonly string[];
  readonly links?: readonly LinkInput[];
}

/** Refuses (403) an actor who may not create the tag, were it protected (GitLab's can_create_tag?). */
function assertMayReleaseTag(ctx: SiteContext, project: ProjectRow, actor: Actor, tag: string): void {
  if (!mayCreateTag(refPolicyFor(ctx.db, actor, project), tag)) throw forbidden(PROTECTED_TAG_REFUSAL);
}

/** The ids of the project's (and its groups') milestones with these titles; 400 naming the titles not found. */
function milestoneIdsFor(ctx: SiteContext, project: ProjectRow, titles: readonly string[]): number[] {
  const scope = projectMilestoneScope(ctx.db, project);
  const found = titles.map((title) => ({ title, id: milestoneIdsWithTitle(ctx.db, scope, title)[0] }));
  const missing = found.filter((entry) => entry.id === undefined).map((entry) => entry.title);
  if (missing.length) throw badRequest(`Milestone(s) not found: ${missing.join(', ')}`);
  return found.map((entry) => entry.id!);
}

/**
 * Creates a release (GitLab's Releases::CreateService): 403 for a protected tag the actor may not
 * create, 409 when the tag has a release, 400 for unknown milestones or bad links; a missing tag is
 * created from `ref` (422 `Ref is not specified` without one; the tag API's 400s for a bad ref),
 * which pushes it as git would (tag push hooks, Geo). The release hook fires after the commit.
 */
export async function createRelease(ctx: SiteContext, project: ProjectRow, actor: Actor, input: ReleaseInput): Promise<ReleaseView> {
  assertMayReleaseTag(ctx, project, actor, input.tag);
  if (findReleaseRow(ctx.db, project.id, input.tag)) throw conflict('Release already exists');
  const milestoneIds = milestoneIdsFor(ctx, project, input.milestones ?? []);
  const links: ReleaseLinkValues[] = (input.links ?? []).map((link) => linkValues(link));
  assertDistinctLinks(links);
  let tag = (await listTags(repositoryOf(ctx, project), input.tag))[0];
  if (!tag) {
    if (!input.ref) throw new AppError('unprocessable', 'Ref is not specified');
    tag = (await createTag(ctx, project, actor, { name: input.tag, ref: input.ref, message: input.tagMessage })).tag;
  }
  const now = nowIso();
  const row = inTransaction(ctx.db, () => {
    if (findReleaseRow(ctx.db, project.id, input.tag)) throw conflict('Release already exists');
    const id = insertReleaseRow(ctx.db, {
      project_id: project.id,
      tag: input.tag,
      name: input.name ?? input.tag,
      description: input.description ?? '',
      author_id: actor.user.id,
      released_at: input.releasedAt ?? now,
      sha: tag.commitId,
      created_at: now,
      updated_at: now,
    });
    for (const link of links) insertLinkRow(ctx.db, id, link, now);
    setReleaseMilestones(ctx.db, id, milestoneIds);
    return findReleaseRow(ctx.db, project.id, input.tag)!;
  });
  const view = await releaseView(ctx, project, actor, row);
  fireReleaseHooks(ctx, project, view, 'create');
  return view;
}

export interface ReleaseUpdate {
  readonly name?: string;
  readonly description?: string;
  readonly releasedAt?: string;
  /** Replaces the milestones; [] removes them all. */
  readonly milestones?: readonly string[];
}

/**
 * Edits a release (GitLab's Releases::UpdateService): 404 without the tag or its release, 403 for
 * a protected tag the actor may not create, 400 `params is empty` with nothing to change or for
 * unknown milestones.
 */
export async function updateRelease(ctx: SiteContext, project: ProjectRow, actor: Actor, tag: string, input: ReleaseUpdate): Promise<ReleaseView> {
  if (!(await listTags(repositoryOf(ctx, project), tag))[0]) throw notFound('Tag');
  const release = findRelease(ctx, project, tag);
  assertMayReleaseTag(ctx, project, actor, tag);
  if (input.name === undefined && input.description === undefined && input.releasedAt === undefined && input.milestones === undefined) throw badRequest('params is empty');
  const milestoneIds = input.milestones ? milestoneIdsFor(ctx, project, input.milestones) : null;
  const row = inTransaction(ctx.db, () => {
    updateReleaseRow(ctx.db, release.id, { name: input.name, description: input.description, released_at: input.releasedAt }, nowIso());
    if (milestoneIds) setReleaseMilestones(ctx.db, release.id, milestoneIds);
    return findRelease(ctx, project, tag);
  });
  const view = await releaseView(ctx, project, actor, row);
  fireReleaseHooks(ctx, project, view, 'update');
  return view;
}

/** Deletes a release, never its tag (GitLab's Releases::DestroyService), and answers it as it was. */
export async function deleteRelease(ctx: SiteContext, project: ProjectRow, actor: Actor, tag: string): Promise<ReleaseView> {
  const release = findRelease(ctx, project, tag);
  assertMayReleaseTag(ctx, project, actor, tag);
  const view = await releaseView(ctx, project, actor, release);
  inTransaction(ctx.db, () => {
    deleteReleaseById(ctx.db, release.id);
    fireReleaseHooks(ctx, project, view, 'delete');
  });
  return view;
}
