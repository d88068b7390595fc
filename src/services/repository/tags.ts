import { inTransaction } from '../../db/connection.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { deleteReleaseRow, findReleaseRow, insertReleaseRow, releaseRowsFor, updateReleaseDescription, type ReleaseRow } from '../../db/tables/releases.js';
import type { TagView } from '../../entities/tags.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { GitError } from '../../git/cli.js';
import { readCommit, readCommits } from '../../git/commit-log.js';
import { repositoryOf } from '../../git/in-repository.js';
import { BLANK_SHA } from '../../git/object-names.js';
import { resolveCommit } from '../../git/refs.js';
import { isValidTagName, listTags, removeTag, writeTag, type TagRecord } from '../../git/tags.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import type { Actor } from '../users/authentication.js';
import { notifyRefChange } from './commit-writer.js';
import { isTagProtected, refChangeRefusal, refPolicyFor } from './ref-policy.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';

export interface TagListOptions {
  readonly orderBy: 'name' | 'updated';
  readonly sort: 'asc' | 'desc';
  readonly search?: string;
}

/** The views of some tags: their commits (one git read) and releases (one query) preloaded. */
async function views(ctx: SiteContext, project: ProjectRow, actor: Actor | null, tags: readonly TagRecord[]): Promise<TagView[]> {
  const repository = repositoryOf(ctx, project);
  const commits = await readCommits(repository, [...new Set(tags.flatMap((tag) => (tag.commitId ? [tag.commitId] : [])))]);
  const byId = new Map(commits.map((commit) => [commit.id, commit]));
  const releases = new Map(releaseRowsFor(ctx.db, project.id, tags.map((tag) => tag.name)).map((row) => [row.tag, row]));
  const policy = refPolicyFor(ctx.db, actor, project);
  return tags.map((tag) => ({
    tag,
    commit: tag.commitId ? (byId.get(tag.commitId) ?? null) : null,
    release: releases.get(tag.name) ?? null,
    protected: isTagProtected(policy, tag.name),
  }));
}

/** GitLab's TagsFinder: `search` a substring (`^x` prefix, `x$` suffix), ordered by name or by the tagged commit's date. */
export async function listProjectTags(ctx: SiteContext, project: ProjectRow, actor: Actor | null, options: TagListOptions, offset: number, limit: number) {
  let tags = await listTags(repositoryOf(ctx, project));
  if (options.search) {
    const term = options.search.toLowerCase();
    const test = term.startsWith('^') ? (n: string) => n.startsWith(term.slice(1)) : term.endsWith('$') ? (n: string) => n.endsWith(term.slice(0, -1)) : (n: string) => n.includes(term);
    tags = tags.filter((tag) => test(tag.name.toLowerCase()));
  }
  const direction = options.sort === 'asc' ? 1 : -1;
  tags.sort((a, b) => direction * (options.orderBy === 'name' ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.updatedAt - b.updatedAt || (a.name < b.name ? -1 : 1)));
  return { rows: await views(ctx, project, actor, tags.slice(offset, offset + limit)), total: tags.length };
}

async function findTag(ctx: SiteContext, project: ProjectRow, name: string): Promise<TagRecord> {
  const tag = (await listTags(repositoryOf(ctx, project), name))[0];
  if (!tag) throw notFound('Tag');
  return tag;
}

export async function getTag(ctx: SiteContext, project: ProjectRow, actor: Actor | null, name: string): Promise<TagView> {
  return (await views(ctx, project, actor, [await findTag(ctx, project, name)]))[0]!;
}

export interface TagInput {
  readonly name: string;
  readonly ref: string;
  readonly message?: string;
  readonly releaseDescription?: string;
}

/**
 * Creates a tag (GitLab's Tags::CreateService): lightweight, or annotated with `message`, at any
 * ref; 400 `Tag name invalid`, `Tag X already exists`, `Target X is invalid`, or the protected
 * tag's refusal. `release_description` writes the release notes with it. Tag push hooks fire.
 */
export async function createTag(ctx: SiteContext, project: ProjectRow, actor: Actor, input: TagInput): Promise<TagView> {
  const repository = repositoryOf(ctx, project);
  if (!(await isValidTagName(input.name))) throw badRequest('Tag name invalid');
  if ((await listTags(repository, input.name)).length) throw badRequest(`Tag ${input.name} already exists`);
  const sha = await resolveCommit(repository, input.ref);
  if (!sha) throw badRequest(`Target ${input.ref} is invalid`);
  const refusal = refChangeRefusal(refPolicyFor(ctx.db, actor, project), { ref: `refs/tags/${input.name}`, before: BLANK_SHA, after: sha, forced: false }, 'web');
  if (refusal) throw badRequest(refusal);
  const message = input.message?.trim() ? input.message.trim() : null;
  try {
    await writeTag(repository, input.name, sha, message, { name: actor.user.name, email: actor.user.email });
  } catch (error) {
    if (error instanceof GitError) throw badRequest(`Tag ${input.name} already exists`);
    throw error;
  }
  const tag = await findTag(ctx, project, input.name);
  // A release left by a tag of this name deleted over git is the new tag's to replace.
  if (input.releaseDescription) upsertRelease(ctx, project, actor, tag, input.releaseDescription, 'replace');
  await notifyRefChange(ctx, project, actor, `refs/tags/${input.name}`, BLANK_SHA, tag.target);
  return getTag(ctx, project, actor, input.name);
}

/** Deletes a tag and its release notes; a protected tag, or any existing tag for a developer, is refused (403) as a push of the deletion would be. */
export async function deleteTag(ctx: SiteContext, project: ProjectRow, actor: Actor, name: string, unmodifiedSince: number | null): Promise<void> {
  const tag = await findTag(ctx, project, name);
  // As for branches: the tagged commit's author date (a tag of a tree or blob has none to compare).
  if (unmodifiedSince !== null && tag.commitId) assertUnmodifiedSince(unmodifiedSince, (await readCommit(repositoryOf(ctx, project), tag.commitId)).authoredDate);
  const refusal = refChangeRefusal(refPolicyFor(ctx.db, actor, project), { ref: `refs/tags/${name}`, before: tag.target, after: BLANK_SHA, forced: false }, 'web');
  if (refusal) throw forbidden(refusal);
  try {
    await removeTag(repositoryOf(ctx, project), name, tag.target);
  } catch (error) {
    if (error instanceof GitError) throw badRequest(`Could not delete tag '${name}': it was changed by another push; please retry`);
    throw error;
  }
  inTransaction(ctx.db, () => deleteReleaseRow(ctx.db, project.id, name));
  await notifyRefChange(ctx, project, actor, `refs/tags/${name}`, tag.target, BLANK_SHA);
}

/** Writes a tag's release notes: `create` (409 when they exist), `update` (404 when not) or `replace` (either). */
function upsertRelease(ctx: SiteContext, project: ProjectRow, actor: Actor, tagRecord: TagRecord, description: string, mode: 'create' | 'update' | 'replace'): ReleaseRow {
  const tag = tagRecord.name;
  return inTransaction(ctx.db, () => {
    const existing = findReleaseRow(ctx.db, project.id, tag);
    const now = nowIso();
    if (existing && mode === 'create') throw conflict('Release already exists');
    if (!existing && mode === 'update') throw notFound('Release');
    if (existing) updateReleaseDescription(ctx.db, existing.id, description, now);
    else insertReleaseRow(ctx.db, { project_id: project.id, tag, name: tag, description, author_id: actor.user.id, released_at: now, sha: tagRecord.commitId, created_at: now, updated_at: now });
    return findReleaseRow(ctx.db, project.id, tag)!;
  });
}

/**
 * POST (create) or PUT (update) .../tags/:tag_name/release (GitLab 10.x): 404 `Tag` for an
 * unknown tag, 409 `Release already exists` on create, 404 `Release` on update of none.
 */
export async function writeRelease(ctx: SiteContext, project: ProjectRow, actor: Actor, tag: string, description: string, mode: 'create' | 'update'): Promise<ReleaseRow> {
  return upsertRelease(ctx, project, actor, await findTag(ctx, project, tag), description, mode);
}
