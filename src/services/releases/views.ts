import { milestonesByIds } from '../../db/tables/milestones.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { linksOfReleases } from '../../db/tables/release-links.js';
import { milestoneIdsOfReleases, milestoneIssueStats } from '../../db/tables/release-milestones.js';
import type { ReleaseRow } from '../../db/tables/releases.js';
import type { ReleaseProject, ReleaseView } from '../../entities/releases.js';
import { readCommits } from '../../git/commit-log.js';
import { repositoryOf } from '../../git/in-repository.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { milestoneOwnerPaths } from '../issuables/milestones.js';
import { can } from '../permissions.js';
import { projectFullPath } from '../projects/fork.js';
import { refPolicyFor } from '../repository/ref-policy.js';
import type { Actor } from '../users/authentication.js';
import { mayCreateTag } from './tag-access.js';

/** Where the project's release pages live. */
export function releaseProjectOf(ctx: SiteContext, project: ProjectRow): ReleaseProject {
  const fullPath = projectFullPath(ctx.db, project);
  return { id: project.id, path: project.path, fullPath, webUrl: `${ctx.externalUrl}/${fullPath}` };
}

/**
 * The views of some releases of one project, for one caller: authors, links, milestones (with
 * their issue counts) one query each, the commits one git read; what the caller may see decided
 * once (download_code, and whether it may edit each release's tag).
 */
export async function releaseViews(ctx: SiteContext, project: ProjectRow, actor: Actor | null, rows: readonly ReleaseRow[]): Promise<ReleaseView[]> {
  const ids = rows.map((row) => row.id);
  const downloadCode = can(ctx.db, actor, 'download_code', project);
  const edits = can(ctx.db, actor, 'create_release', project) ? refPolicyFor(ctx.db, actor, project) : null;
  const authors = usersByIds(ctx.db, rows.flatMap((row) => (row.author_id === null ? [] : [row.author_id])));
  const links = linksOfReleases(ctx.db, ids);
  const milestoneIds = milestoneIdsOfReleases(ctx.db, ids);
  const milestones = milestonesByIds(ctx.db, [...new Set([...milestoneIds.values()].flat())]);
  const ownerPath = milestoneOwnerPaths(ctx.db, [...milestones.values()]);
  const stats = milestoneIssueStats(ctx.db, [...milestones.keys()]);
  const shas = downloadCode ? [...new Set(rows.flatMap((row) => (row.sha ? [row.sha] : [])))] : [];
  const commits = new Map((shas.length ? await readCommits(repositoryOf(ctx, project), shas) : []).map((commit) => [commit.id, commit]));
  const releaseProject = releaseProjectOf(ctx, project);
  const now = nowIso();
  return rows.map((release) => ({
    release,
    project: releaseProject,
    author: release.author_id === null ? null : (authors.get(release.author_id) ?? null),
    commit: release.sha ? (commits.get(release.sha) ?? null) : null,
    links: links.get(release.id) ?? [],
    milestones: (milestoneIds.get(release.id) ?? []).flatMap((id) => {
      const row = milestones.get(id);
      return row ? [{ row, ownerPath: ownerPath(row), stats: stats.get(id) ?? { total: 0, closed: 0 } }] : [];
    }),
    downloadCode,
    canEdit: edits !== null && mayCreateTag(edits, release.tag),
    now,
  }));
}

export async function releaseView(ctx: SiteContext, project: ProjectRow, actor: Actor | null, row: ReleaseRow): Promise<ReleaseView> {
  return (await releaseViews(ctx, project, actor, [row]))[0]!;
}
