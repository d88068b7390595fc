import type { Request, Response } from 'express';
import type { LabelRow, LabelScope } from '../../db/tables/labels.js';
import { labelView, projectLabelView } from '../../entities/labels.js';
import { badRequest } from '../../errors.js';
import { promoteLabel } from '../../services/issuables/label-promotion.js';
import { createLabel, deleteLabel, findLabel, listLabels, updateLabel, withLabelFacts } from '../../services/issuables/labels.js';
import { groupLabelScope, projectLabelScope } from '../../services/issuables/scopes.js';
import { setLabelSubscription } from '../../services/issuables/subscriptions.js';
import type { SiteContext } from '../../site-context.js';
import { assertUnmodifiedSince } from '../../services/unmodified-since.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { groupOf, projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard, valueGuard, type ValueGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { bool, clearable, int, required, requireAtLeastOne, str, type Parsed } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/**
 * Labels of projects and groups (lib/api/labels.rb, group_labels.rb): the same handlers serve
 * both, `kind` saying whose labels a route addresses. A project sees its groups' labels too
 * (include_ancestor_groups); edits and deletes address only the owner's own labels.
 */
export type LabelParentKind = 'project' | 'group';

function scopeOf(ctx: SiteContext, req: Request, kind: LabelParentKind, includeAncestors: boolean): LabelScope {
  return kind === 'project' ? projectLabelScope(ctx.db, projectOf(req), includeAncestors) : groupLabelScope(ctx.db, groupOf(req), includeAncestors);
}

/** Labels as the parent's entity shows them: ProjectLabel (with the priority there) or GroupLabel. */
function viewsOf(ctx: SiteContext, req: Request, kind: LabelParentKind, labels: readonly LabelRow[]) {
  const projectId = kind === 'project' ? projectOf(req).id : null;
  return withLabelFacts(ctx.db, req.actor, labels, projectId).map(({ label, facts, priority }) =>
    kind === 'project' ? projectLabelView(label, facts, priority) : labelView(label, facts),
  );
}

const sendLabel = (ctx: SiteContext, req: Request, res: Response, kind: LabelParentKind, status: number, label: LabelRow) =>
  sendJson(res, status, viewsOf(ctx, req, kind, [label])[0]);

/** A priority: a number sets it, an empty value clears it (GitLab's allow_blank). */
const priority = clearable(int({ min: 0 }));

export const labelListParams = paramsGuard('labelListParams', { include_ancestor_groups: bool(), search: str(), with_counts: bool(), ...PAGE_PARAMS }, (params) => ({
  includeAncestors: params.include_ancestor_groups ?? true,
  search: params.search || undefined,
  page: pageOf(params),
}));

export const labelCreateParams = paramsGuard('labelCreateParams', { name: required(str()), color: required(str()), description: str(), priority });

/** `label_id` or `name`, exactly one (GitLab's exactly_one_of), naming the label in the body. */
const LABEL_REF = { label_id: int(), name: str() };

function labelRefOf({ label_id: id, name }: Parsed<typeof LABEL_REF>): string {
  if (id !== undefined && name !== undefined) throw badRequest('label_id, name are mutually exclusive');
  if (id === undefined && !name) throw badRequest('label_id, name are missing, exactly one parameter must be provided');
  return id !== undefined ? String(id) : name!;
}

/** What an edit changes: a group label has no priority. */
const LABEL_UPDATE = { new_name: str(), color: str(), description: str() };
const labelUpdateParams = (kind: LabelParentKind) => (kind === 'project' ? { ...LABEL_UPDATE, priority } : LABEL_UPDATE);

function labelUpdateOf(params: Parsed<typeof LABEL_UPDATE> & { priority?: number | null }, kind: LabelParentKind) {
  const update = { newName: params.new_name, color: params.color, description: params.description, priority: params.priority };
  const names = kind === 'project' ? ['new_name', 'color', 'description', 'priority'] : ['new_name', 'color', 'description'];
  requireAtLeastOne({ new_name: update.newName, color: update.color, description: update.description, priority: update.priority }, names);
  return update;
}

/** PUT .../labels with the label named in the body. */
const labelBodyUpdateParams = (kind: LabelParentKind) =>
  paramsGuard(`labelBodyUpdateParams(${kind})`, { ...LABEL_REF, ...labelUpdateParams(kind) }, (params) => ({ ref: labelRefOf(params), update: labelUpdateOf(params, kind) }));

/** PUT .../labels/:name. */
const labelPathUpdateParams = (kind: LabelParentKind) =>
  paramsGuard(`labelPathUpdateParams(${kind})`, labelUpdateParams(kind), (params, req) => ({ ref: String(req.params.name), update: labelUpdateOf(params, kind) }));

/** DELETE .../labels with the label named in the body or query. */
export const labelBodyRef = paramsGuard('labelBodyRef', LABEL_REF, labelRefOf);

export const labelHandlers = (kind: LabelParentKind) => {
  const bodyUpdate = labelBodyUpdateParams(kind);
  const pathUpdate = labelPathUpdateParams(kind);
  /** GitLab's destroy_conditionally!: 412 when the label changed after If-Unmodified-Since. */
  const remove = (ctx: SiteContext, req: Request, ref: string) => {
    const label = findLabel(ctx.db, scopeOf(ctx, req, kind, false), ref);
    assertUnmodifiedSince(unmodifiedSince.of(req), label.updated_at);
    deleteLabel(ctx.db, label);
  };
  return {
    bodyUpdate,
    pathUpdate,
    list(ctx: SiteContext, req: Request, res: Response): void {
      const { includeAncestors, search, page } = labelListParams.of(req);
      const result = listLabels(ctx.db, scopeOf(ctx, req, kind, includeAncestors), search, page);
      sendPage(req, res, ctx.externalUrl, page, viewsOf(ctx, req, kind, result.rows), result.total);
    },
    show(ctx: SiteContext, req: Request, res: Response): void {
      sendLabel(ctx, req, res, kind, 200, findLabel(ctx.db, scopeOf(ctx, req, kind, true), String(req.params.name)));
    },
    create(ctx: SiteContext, req: Request, res: Response): void {
      const owner = kind === 'project' ? { projectId: projectOf(req).id } : { groupId: groupOf(req).id };
      sendLabel(ctx, req, res, kind, 201, createLabel(ctx.db, owner, scopeOf(ctx, req, kind, true), labelCreateParams.of(req)));
    },
    updateByBody(ctx: SiteContext, req: Request, res: Response): void {
      const { ref, update } = bodyUpdate.of(req);
      const label = findLabel(ctx.db, scopeOf(ctx, req, kind, false), ref);
      sendLabel(ctx, req, res, kind, 200, updateLabel(ctx.db, label, kind === 'project' ? projectOf(req).id : null, update));
    },
    updateByPath(ctx: SiteContext, req: Request, res: Response): void {
      const { ref, update } = pathUpdate.of(req);
      const label = findLabel(ctx.db, scopeOf(ctx, req, kind, false), ref);
      sendLabel(ctx, req, res, kind, 200, updateLabel(ctx.db, label, kind === 'project' ? projectOf(req).id : null, update));
    },
    removeByBody(ctx: SiteContext, req: Request, res: Response): void {
      remove(ctx, req, labelBodyRef.of(req));
      sendNoContent(res);
    },
    removeByPath(ctx: SiteContext, req: Request, res: Response): void {
      remove(ctx, req, String(req.params.name));
      sendNoContent(res);
    },
    subscriber(subscribed: boolean) {
      return (ctx: SiteContext, req: Request, res: Response): void => {
        const label = findLabel(ctx.db, scopeOf(ctx, req, kind, true), String(req.params.name));
        setLabelSubscription(ctx.db, requireActor(req), label, kind === 'project' ? projectOf(req).id : null, subscribed);
        sendLabel(ctx, req, res, kind, 201, label);
      };
    },
  };
};

/** The label to promote: `:name` in the path, or `name` in the body (the 12.3 form). */
export const promoteRef = (path: string): ValueGuard<string> =>
  path.includes(':name') ? valueGuard('promoteRef(:name)', (_ctx, req) => String(req.params.name)) : paramsGuard('promoteRef', { name: required(str()) }, (params) => params.name);

/** Promotes a project label to the project's group (PUT answers 200, POST 201); answers with the group label. */
export function promoteProjectLabel(status: number, ref: ValueGuard<string>) {
  return (ctx: SiteContext, req: Request, res: Response): void => {
    const label = findLabel(ctx.db, scopeOf(ctx, req, 'project', false), ref.of(req));
    const promoted = promoteLabel(ctx.db, label, groupOf(req));
    const [{ label: row, facts }] = withLabelFacts(ctx.db, req.actor, [promoted], null);
    sendJson(res, status, labelView(row, facts));
  };
}
