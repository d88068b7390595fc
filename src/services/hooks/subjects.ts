import { findNamespaceById } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { UserRow } from '../../db/tables/users.js';
import { userBasic } from '../../entities/users.js';
import type { SiteContext } from '../../site-context.js';
import type { HookProject, HookUser } from './payloads.js';

/** The user who acted, as hook payloads describe them (avatar_url absolute). */
export function hookUserOf(ctx: SiteContext, user: UserRow): HookUser {
  return { id: user.id, name: user.name, username: user.username, email: user.email, avatar_url: userBasic(user, ctx).avatar_url };
}

/** The project as hook payloads describe it (Project#hook_attrs), its URLs those of the project entity. */
export function hookProjectOf(ctx: SiteContext, project: ProjectRow): HookProject {
  const namespace = findNamespaceById(ctx.db, project.namespace_id);
  const fullPath = `${namespace?.full_path ?? ''}/${project.path}`;
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    web_url: `${ctx.externalUrl}/${fullPath}`,
    avatar_url: project.avatar_path ? `${ctx.externalUrl}/uploads/-/system/project/avatar/${project.id}/${encodeURIComponent(project.avatar_path)}` : null,
    git_ssh_url: `git@${new URL(ctx.externalUrl).hostname}:${fullPath}.git`,
    git_http_url: `${ctx.externalUrl}/${fullPath}.git`,
    namespace: namespace?.name ?? '',
    visibility_level: project.visibility_level,
    path_with_namespace: fullPath,
    default_branch: project.default_branch,
    ci_config_path: project.ci_config_path,
  };
}
