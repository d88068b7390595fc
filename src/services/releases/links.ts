import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { deleteLinkRow, findLinkRow, insertLinkRow, listLinkRows, takenLinkFields, updateLinkRow, type ReleaseLinkRow, type ReleaseLinkType } from '../../db/tables/release-links.js';
import type { ReleaseRow } from '../../db/tables/releases.js';
import { forbidden, invalid, notFound } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { refPolicyFor } from '../repository/ref-policy.js';
import type { Actor } from '../users/authentication.js';
import { linkValues, type LinkInput } from './link-values.js';
import { findRelease } from './releases.js';
import { mayCreateTag, PROTECTED_TAG_REFUSAL } from './tag-access.js';

/** The asset links of a tag's release (GitLab's release/links.rb): 404 without the release. */
export function listReleaseLinks(ctx: SiteContext, project: ProjectRow, tag: string, page: Page): { release: ReleaseRow } & Paged<ReleaseLinkRow> {
  const release = findRelease(ctx, project, tag);
  return { release, ...listLinkRows(ctx.db, release.id, page) };
}

/** One link of the release, or 404. */
export function getReleaseLink(ctx: SiteContext, project: ProjectRow, tag: string, linkId: number): { release: ReleaseRow; link: ReleaseLinkRow } {
  const release = findRelease(ctx, project, tag);
  const link = findLinkRow(ctx.db, release.id, linkId);
  if (!link) throw notFound('Link');
  return { release, link };
}

/** Links::BaseService: a protected tag's release takes links only from those who may create the tag (403). */
function assertMayEditLinks(ctx: SiteContext, project: ProjectRow, actor: Actor, release: ReleaseRow): void {
  if (!mayCreateTag(refPolicyFor(ctx.db, actor, project), release.tag)) throw forbidden(PROTECTED_TAG_REFUSAL);
}

/** Writes a link's values after GitLab's validations: 400 for a bad value or one another link of the release has. */
function writeLink(ctx: SiteContext, release: ReleaseRow, input: LinkInput, existing: ReleaseLinkRow | null): ReleaseLinkRow {
  const values = linkValues(input);
  return inTransaction(ctx.db, () => {
    const taken = takenLinkFields(ctx.db, release.id, values, existing?.id ?? null);
    if (taken.length) throw invalid(Object.fromEntries(taken.map((field) => [field, ['has already been taken']])));
    const now = nowIso();
    const id = existing ? (updateLinkRow(ctx.db, existing.id, values, now), existing.id) : insertLinkRow(ctx.db, release.id, values, now);
    return findLinkRow(ctx.db, release.id, id)!;
  });
}

export function createReleaseLink(ctx: SiteContext, project: ProjectRow, actor: Actor, tag: string, input: LinkInput): { release: ReleaseRow; link: ReleaseLinkRow } {
  const release = findRelease(ctx, project, tag);
  assertMayEditLinks(ctx, project, actor, release);
  return { release, link: writeLink(ctx, release, input, null) };
}

export interface LinkUpdate {
  readonly name?: string;
  readonly url?: string;
  readonly filepath?: string | null;
  readonly linkType?: ReleaseLinkType;
}

/** Changes the given fields of a link; the rest keep their values. */
export function updateReleaseLink(ctx: SiteContext, project: ProjectRow, actor: Actor, tag: string, linkId: number, input: LinkUpdate): { release: ReleaseRow; link: ReleaseLinkRow } {
  const { release, link } = getReleaseLink(ctx, project, tag, linkId);
  assertMayEditLinks(ctx, project, actor, release);
  const merged: LinkInput = {
    name: input.name ?? link.name,
    url: input.url ?? link.url,
    filepath: input.filepath !== undefined ? input.filepath : link.filepath,
    linkType: input.linkType ?? link.link_type,
  };
  return { release, link: writeLink(ctx, release, merged, link) };
}

/** Deletes a link and answers it as it was (GitLab presents the destroyed link). */
export function deleteReleaseLink(ctx: SiteContext, project: ProjectRow, actor: Actor, tag: string, linkId: number): { release: ReleaseRow; link: ReleaseLinkRow } {
  const found = getReleaseLink(ctx, project, tag, linkId);
  assertMayEditLinks(ctx, project, actor, found.release);
  inTransaction(ctx.db, () => deleteLinkRow(ctx.db, found.link.id));
  return found;
}
