import type { ProjectRow } from '../../db/tables/projects.js';
import { AppError, notFound } from '../../errors.js';
import { streamArchive, type ArchiveFormat } from '../../git/archive.js';
import type { GitStream } from '../../git/cli.js';
import { repositoryOf } from '../../git/in-repository.js';
import { resolveCommit } from '../../git/refs.js';
import { entryAt } from '../../git/tree.js';
import type { SiteContext } from '../../site-context.js';
import { treePathOf } from './browse.js';

/** The names GitLab's archive route takes (Gitlab::PathRegex.archive_formats_regex), and what each one writes. */
const FORMATS: Readonly<Record<string, ArchiveFormat>> = {
  'tar.gz': 'tar.gz',
  tgz: 'tar.gz',
  gz: 'tar.gz',
  'tar.bz2': 'tar.bz2',
  tbz: 'tar.bz2',
  tbz2: 'tar.bz2',
  tb2: 'tar.bz2',
  bz2: 'tar.bz2',
  tar: 'tar',
  zip: 'zip',
};

/** An archive ready to stream: its file name (GitLab's `<project>-<ref>-<sha>[-<path>].<ext>`), its kind, and the git that writes it. */
export interface ProjectArchive {
  readonly fileName: string;
  readonly format: ArchiveFormat;
  readonly commit: string;
  start(): GitStream;
}

/**
 * An archive of `sha` (any ref; the default branch when absent), of the whole tree or of `path`
 * (GitLab's send_git_archive with append_sha): its one top directory is the file name without the
 * extension. An unknown format is an unknown route (GitLab's route requirement); a ref or path that
 * names nothing is 404 `File`, as GitLab's rescue answers.
 */
export async function prepareArchive(ctx: SiteContext, project: ProjectRow, options: { sha?: string; format?: string; path?: string }): Promise<ProjectArchive> {
  const format = FORMATS[options.format ?? 'tar.gz'];
  if (!format) throw new AppError('route_not_found');
  const repository = repositoryOf(ctx, project);
  const ref = options.sha || project.default_branch;
  const commit = await resolveCommit(repository, ref);
  if (!commit) throw notFound('File');
  const path = treePathOf(options.path);
  if (path && !(await entryAt(repository, commit, path))) throw notFound('File');
  const segments = [project.path, ref.replace(/\//g, '-'), commit, ...(options.path ? [options.path.replace(/\//g, '-')] : [])];
  const prefix = segments.join('-');
  return {
    fileName: `${prefix}.${format}`,
    format,
    commit,
    start: () => streamArchive(repository, { commit, prefix, format, path: path || undefined }),
  };
}
