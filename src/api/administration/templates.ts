import type { Request, Response } from 'express';
import { licenseTemplateView } from '../../entities/templates.js';
import { badRequest, notFound } from '../../errors.js';
import { fillLicenseText, findLicenseTemplate, licenseTemplates } from '../../services/templates/license-templates.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { paramsGuard, valueGuard } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { bool, str } from '../params.js';
import { sendJson } from '../respond.js';

/**
 * The template types GitLab serves beside licenses. No maintained package in node_modules ships
 * gitignore, Dockerfile or .gitlab-ci.yml templates, and their texts are not copied into this
 * repository: the lists are empty and every name is 404, as for a GitLab without them.
 */
export const OTHER_TEMPLATE_TYPES = ['gitignores', 'dockerfiles', 'gitlab_ci_ymls'] as const;
/** A project's template types (GitLab's project_templates.rb): issue and merge request templates come from the repository. */
const PROJECT_TEMPLATE_TYPES = ['licenses', ...OTHER_TEMPLATE_TYPES, 'issues', 'merge_requests'] as const;

export const licenseListParams = paramsGuard('licenseListParams', { popular: bool() });
export const licenseFillParams = paramsGuard('licenseFillParams', { project: str({ max: 255 }), fullname: str({ max: 255 }) });

/** The `:type` of a project template route: 400 for a type GitLab does not have. */
export const projectTemplateType = valueGuard('projectTemplateType', (_ctx, req) => {
  const type = String(req.params.type);
  if (!(PROJECT_TEMPLATE_TYPES as readonly string[]).includes(type)) throw badRequest('type does not have a valid value');
  return type as (typeof PROJECT_TEMPLATE_TYPES)[number];
});

export async function listLicenses(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { popular } = licenseListParams.of(req);
  const page = paged.of(req);
  const all = (await licenseTemplates()).filter((license) => !popular || license.popular);
  const rows = all.slice(page.offset, page.offset + page.perPage).map((license) => licenseTemplateView(license, license.text));
  sendPage(req, res, ctx.externalUrl, page, rows, all.length);
}

export async function showLicense(_ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const license = await findLicenseTemplate(String(req.params.name));
  const { project, fullname } = licenseFillParams.of(req);
  const content = fillLicenseText(license.text, { year: new Date().getUTCFullYear(), project, fullname: fullname ?? req.actor?.user.name });
  sendJson(res, 200, licenseTemplateView(license, content));
}

/** GET /templates/<type>: the empty list of a type no installed package provides. */
export function listOtherTemplates(ctx: SiteContext, req: Request, res: Response): void {
  sendPage(req, res, ctx.externalUrl, paged.of(req), [], 0);
}

/** GET /templates/<type>/:name: GitLab's `404 <type in the singular> Not Found`. */
export const showOtherTemplate = (type: (typeof OTHER_TEMPLATE_TYPES)[number]) => (): never => {
  throw notFound(type.slice(0, -1));
};

/** GET /projects/:id/templates/:type: `{key, name}` per template; licenses from SPDX, the other types empty. */
export async function listProjectTemplates(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const page = paged.of(req);
  const all = projectTemplateType.of(req) === 'licenses' ? (await licenseTemplates()).map((license) => ({ key: license.key, name: license.name })) : [];
  sendPage(req, res, ctx.externalUrl, page, all.slice(page.offset, page.offset + page.perPage), all.length);
}

/** GET /projects/:id/templates/:type/:name: a license with the project's name filled in; 404 for the other types. */
export async function showProjectTemplate(_ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const type = projectTemplateType.of(req);
  if (type !== 'licenses') throw notFound('Template');
  const license = await findLicenseTemplate(String(req.params.name));
  const { fullname } = licenseFillParams.of(req);
  const content = fillLicenseText(license.text, { year: new Date().getUTCFullYear(), project: projectOf(req).name, fullname: fullname ?? req.actor?.user.name });
  sendJson(res, 200, licenseTemplateView(license, content));
}
