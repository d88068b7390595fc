import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  deleteBadgeRow,
  findBadge,
  insertBadge,
  isBadgeOfProject,
  listGroupBadgesOf,
  listProjectBadgesOf,
  updateBadgeRow,
  type BadgeRow,
  type BadgeValues,
} from '../../db/tables/badges.js';
import { findNamespaceById, type NamespaceRow } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { BadgePlaceholders } from '../../entities/badges.js';
import { invalid, notFound, type FieldErrors } from '../../errors.js';
import { branchCommit } from '../../git/refs.js';
import { nowIso } from '../../storage/clock.js';
import { repositoryPath } from '../../storage/layout.js';
import { listProjects } from '../projects/lists.js';
import type { Actor } from '../users/authentication.js';

/** Whose badges a route addresses: a project's (its own and its groups') or a group's own. */
export type BadgeSource = { readonly project: ProjectRow } | { readonly group: NamespaceRow };

/** What a create, update or preview may set; an absent field keeps its value. */
export interface BadgeInput {
  readonly name?: string;
  readonly link_url?: string;
  readonly image_url?: string;
}

export function listBadges(db: Db, source: BadgeSource, name: string | undefined, page: Page): Paged<BadgeRow> {
  return 'project' in source ? listProjectBadgesOf(db, source.project.id, name, page) : listGroupBadgesOf(db, source.group.id, name, page);
}

/**
 * One badge the source shows, or 404 `Not found` (GitLab's `source.badges.find`): a project shows
 * its groups' badges too. With `own`, only the source's own badge: a project's maintainers never
 * edit or delete a badge of its group, which is the group owners' (where GitLab's union finds it).
 */
export function getBadge(db: Db, source: BadgeSource, badgeId: number, own = false): BadgeRow {
  const badge = findBadge(db, badgeId);
  if (!badge) throw notFound();
  if ('group' in source) {
    if (badge.group_id !== source.group.id) throw notFound();
  } else if (own ? badge.project_id !== source.project.id : !isBadgeOfProject(db, badge, source.project.id)) {
    throw notFound();
  }
  return badge;
}

export function createBadge(db: Db, source: BadgeSource, input: BadgeInput & { link_url: string; image_url: string }): BadgeRow {
  const values = validateBadge({ name: input.name ?? null, link_url: input.link_url, image_url: input.image_url });
  const owner = 'project' in source ? { project_id: source.project.id } : { group_id: source.group.id };
  return inTransaction(db, () => findBadge(db, insertBadge(db, owner, values, nowIso()))!);
}

export function updateBadge(db: Db, source: BadgeSource, badgeId: number, input: BadgeInput): BadgeRow {
  return inTransaction(db, () => {
    const badge = getBadge(db, source, badgeId, true);
    const values = validateBadge({
      name: input.name ?? badge.name,
      link_url: input.link_url ?? badge.link_url,
      image_url: input.image_url ?? badge.image_url,
    });
    updateBadgeRow(db, badge.id, values, nowIso());
    return findBadge(db, badge.id)!;
  });
}

export function deleteBadge(db: Db, source: BadgeSource, badgeId: number): void {
  inTransaction(db, () => deleteBadgeRow(db, getBadge(db, source, badgeId, true).id));
}

/** A badge not saved, validated as a save would be: what `GET .../badges/render` shows. */
export function previewBadge(input: BadgeInput & { link_url: string; image_url: string }): BadgeValues {
  return validateBadge({ name: input.name ?? null, link_url: input.link_url, image_url: input.image_url });
}

/**
 * The values a source's badges render with (GitLab's badge_source_params): the project itself, or
 * for a group the newest of its projects the actor may see, else none (urls stay as written). The
 * commit is the default branch's head, read from git only when a badge asks for `%{commit_sha}`.
 */
export async function badgePlaceholders(
  db: Db,
  dataDir: string,
  actor: Actor | null,
  source: BadgeSource,
  urls: readonly string[],
): Promise<BadgePlaceholders | null> {
  const project = 'project' in source ? source.project : listProjects(db, actor, { namespaceId: source.group.id, orderBy: 'id', sort: 'desc' }, FIRST).rows[0];
  if (!project) return null;
  const namespace = findNamespaceById(db, project.namespace_id);
  const wantsCommit = urls.some((url) => url.includes('%{commit_sha}'));
  const branch = project.default_branch || null;
  return {
    project_path: namespace ? `${namespace.full_path}/${project.path}` : project.path,
    project_id: project.id,
    default_branch: branch,
    commit_sha: wantsCommit && branch ? await branchCommit(repositoryPath(dataDir, project.id), branch) : null,
  };
}

const FIRST: Page = { page: 1, perPage: 1, offset: 0 };

/** GitLab's `url: { protocols: %w(http https) }` on both urls; placeholders count as text. */
function validateBadge(values: BadgeValues): BadgeValues {
  const link = values.link_url.trim();
  const image = values.image_url.trim();
  const errors: FieldErrors = {};
  if (!isWebUrl(link)) errors.link_url = ['must be a valid URL'];
  if (!isWebUrl(image)) errors.image_url = ['must be a valid URL'];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return { name: values.name, link_url: link, image_url: image };
}

function isWebUrl(url: string): boolean {
  if (!/^https?:\/\/[^\s]+$/i.test(url)) return false;
  try {
    return new URL(url.replace(/%\{\w+\}/g, 'x')).hostname !== '';
  } catch {
    return false;
  }
}
