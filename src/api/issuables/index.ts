import { badRequest, forbidden } from '../../errors.js';
import { admin, loadGroup, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import {
  addSpentTime,
  estimateTime,
  issueSubscriber,
  listParticipants,
  moveIssueTo,
  resetSpentTime,
  resetTimeEstimate,
  showTimeStats,
  showUserAgentDetail,
} from './issue-actions.js';
import { editableIssue, issueIid, namedIssue, projectGroup, readableIssue } from './issue-guards.js';
import { timeTrackingDurationParams, issueCreateParams, issueListParams, issueUpdateParams, issueMoveParams, myIssueListParams } from './issue-params.js';
import { addIssue, editIssue, listGroupIssues, listMyIssues, listProjectIssues, removeIssue, showIssue } from './issues.js';
import { labelBodyRef, labelCreateParams, labelHandlers, labelListParams, promoteProjectLabel, promoteRef } from './labels.js';
import { milestoneCreateParams, milestoneHandlers, milestoneId, milestoneListParams, milestoneUpdateParams, promoteProjectMilestone } from './milestones.js';
import { addIssueLink, issueLinkCreateParams, issueLinkId, listIssueLinks, removeIssueLink, showIssueLink } from './issue-links.js';
import { issueNoteRoutes } from './note-routes.js';

const projectLabels = labelHandlers('project');
const groupLabels = labelHandlers('group');
const projectMilestones = milestoneHandlers('project');
const groupMilestones = milestoneHandlers('group');

/** The routes of one issue: its iid (400), a visible project (404), then the issue the caller may read (404, confidential ones included). */
const oneIssue = [issueIid, loadProject(), requireAbility('read_issue'), readableIssue];
/** Time tracking changes: signed in (401), the duration read (400), then the issue, then admin_issue (403). */
const timeTracking = (extra: typeof timeTrackingDurationParams | null) => [signedIn, issueIid, ...(extra ? [extra] : []), loadProject(), requireAbility('read_issue'), readableIssue, requireAbility('admin_issue')];

/**
 * The issue tracker (issue 14, items 1-3): issues, labels and milestones of projects and groups.
 * GitLab's order on every row: 401 (signedIn; issue reads are open to anonymous callers on public
 * projects, labels and milestones are not), 400 for a bad parameter (the *Params guards, read
 * before anything is found, as Grape validates), 404 for a missing or invisible project, group,
 * issue, label or milestone, 403 for an ability the caller lacks.
 */
export const issuablesRoutes: readonly Route[] = [
  { method: 'get', path: '/issues', guards: [myIssueListParams], handler: listMyIssues },
  { method: 'get', path: '/groups/:id/issues', guards: [issueListParams, loadGroup()], handler: listGroupIssues },
  { method: 'get', path: '/projects/:id/issues', guards: [issueListParams, loadProject(), requireAbility('read_issue')], handler: listProjectIssues },
  { method: 'post', path: '/projects/:id/issues', guards: [signedIn, issueCreateParams, loadProject(), requireAbility('create_issue')], handler: addIssue },
  { method: 'get', path: '/projects/:id/issues/:issue_iid', guards: oneIssue, handler: showIssue },
  { method: 'put', path: '/projects/:id/issues/:issue_iid', guards: [signedIn, issueIid, issueUpdateParams, loadProject(), requireAbility('read_issue'), editableIssue], handler: editIssue },
  { method: 'delete', path: '/projects/:id/issues/:issue_iid', guards: [signedIn, issueIid, loadProject(), requireAbility('read_issue'), namedIssue, requireAbility('destroy_issue'), unmodifiedSince], handler: removeIssue },

  { method: 'get', path: '/projects/:id/issues/:issue_iid/time_stats', guards: oneIssue, handler: showTimeStats },
  { method: 'post', path: '/projects/:id/issues/:issue_iid/time_estimate', guards: timeTracking(timeTrackingDurationParams), handler: estimateTime },
  { method: 'post', path: '/projects/:id/issues/:issue_iid/reset_time_estimate', guards: timeTracking(null), handler: resetTimeEstimate },
  { method: 'post', path: '/projects/:id/issues/:issue_iid/add_spent_time', guards: timeTracking(timeTrackingDurationParams), handler: addSpentTime },
  { method: 'post', path: '/projects/:id/issues/:issue_iid/reset_spent_time', guards: timeTracking(null), handler: resetSpentTime },
  { method: 'post', path: '/projects/:id/issues/:issue_iid/subscribe', guards: [signedIn, ...oneIssue], handler: issueSubscriber(true) },
  { method: 'post', path: '/projects/:id/issues/:issue_iid/unsubscribe', guards: [signedIn, ...oneIssue], handler: issueSubscriber(false) },
  { method: 'post', path: '/projects/:id/issues/:issue_iid/move', guards: [signedIn, issueIid, issueMoveParams, loadProject(), requireAbility('read_issue'), namedIssue], handler: moveIssueTo },
  { method: 'get', path: '/projects/:id/issues/:issue_iid/participants', guards: [...oneIssue, paged], handler: listParticipants },
  { method: 'get', path: '/projects/:id/issues/:issue_iid/user_agent_detail', guards: [admin, ...oneIssue], handler: showUserAgentDetail },
  ...issueNoteRoutes,

  // Issue links (GitLab 17's IssueLinks API): every row authenticate!s first (401), as GitLab's does.
  { method: 'get', path: '/projects/:id/issues/:issue_iid/links', guards: [signedIn, ...oneIssue], handler: listIssueLinks },
  { method: 'post', path: '/projects/:id/issues/:issue_iid/links', guards: [signedIn, issueIid, issueLinkCreateParams, loadProject(), requireAbility('read_issue'), readableIssue], handler: addIssueLink },
  { method: 'get', path: '/projects/:id/issues/:issue_iid/links/:issue_link_id', guards: [signedIn, issueIid, issueLinkId, loadProject(), requireAbility('read_issue'), readableIssue], handler: showIssueLink },
  { method: 'delete', path: '/projects/:id/issues/:issue_iid/links/:issue_link_id', guards: [signedIn, issueIid, issueLinkId, loadProject(), requireAbility('read_issue'), readableIssue], handler: removeIssueLink },

  { method: 'get', path: '/projects/:id/labels', guards: [signedIn, labelListParams, loadProject()], handler: projectLabels.list },
  { method: 'post', path: '/projects/:id/labels', guards: [signedIn, labelCreateParams, loadProject(), requireAbility('admin_label')], handler: projectLabels.create },
  { method: 'put', path: '/projects/:id/labels', guards: [signedIn, projectLabels.bodyUpdate, loadProject(), requireAbility('admin_label')], handler: projectLabels.updateByBody },
  { method: 'delete', path: '/projects/:id/labels', guards: [signedIn, labelBodyRef, loadProject(), requireAbility('admin_label'), unmodifiedSince], handler: projectLabels.removeByBody },
  ...labelPromotionRoutes('/projects/:id/labels/promote'),
  ...labelPromotionRoutes('/projects/:id/labels/:name/promote'),
  { method: 'get', path: '/projects/:id/labels/:name', guards: [signedIn, loadProject()], handler: projectLabels.show },
  { method: 'put', path: '/projects/:id/labels/:name', guards: [signedIn, projectLabels.pathUpdate, loadProject(), requireAbility('admin_label')], handler: projectLabels.updateByPath },
  { method: 'delete', path: '/projects/:id/labels/:name', guards: [signedIn, loadProject(), requireAbility('admin_label'), unmodifiedSince], handler: projectLabels.removeByPath },
  { method: 'post', path: '/projects/:id/labels/:name/subscribe', guards: [signedIn, loadProject()], handler: projectLabels.subscriber(true) },
  { method: 'post', path: '/projects/:id/labels/:name/unsubscribe', guards: [signedIn, loadProject()], handler: projectLabels.subscriber(false) },

  { method: 'get', path: '/groups/:id/labels', guards: [signedIn, labelListParams, loadGroup()], handler: groupLabels.list },
  { method: 'post', path: '/groups/:id/labels', guards: [signedIn, labelCreateParams, loadGroup(), requireAbility('admin_group_label')], handler: groupLabels.create },
  { method: 'put', path: '/groups/:id/labels', guards: [signedIn, groupLabels.bodyUpdate, loadGroup(), requireAbility('admin_group_label')], handler: groupLabels.updateByBody },
  { method: 'delete', path: '/groups/:id/labels', guards: [signedIn, labelBodyRef, loadGroup(), requireAbility('admin_group_label'), unmodifiedSince], handler: groupLabels.removeByBody },
  { method: 'get', path: '/groups/:id/labels/:name', guards: [signedIn, loadGroup()], handler: groupLabels.show },
  { method: 'put', path: '/groups/:id/labels/:name', guards: [signedIn, groupLabels.pathUpdate, loadGroup(), requireAbility('admin_group_label')], handler: groupLabels.updateByPath },
  { method: 'delete', path: '/groups/:id/labels/:name', guards: [signedIn, loadGroup(), requireAbility('admin_group_label'), unmodifiedSince], handler: groupLabels.removeByPath },
  { method: 'post', path: '/groups/:id/labels/:name/subscribe', guards: [signedIn, loadGroup()], handler: groupLabels.subscriber(true) },
  { method: 'post', path: '/groups/:id/labels/:name/unsubscribe', guards: [signedIn, loadGroup()], handler: groupLabels.subscriber(false) },

  ...milestoneRoutes('project'),
  ...milestoneRoutes('group'),
  {
    method: 'post',
    path: '/projects/:id/milestones/:milestone_id/promote',
    // GitLab asks admin_milestone of the project, then of its group: a project outside a group is refused (403).
    guards: [signedIn, milestoneId, loadProject(), requireAbility('admin_milestone'), projectGroup(() => forbidden()), requireAbility('admin_group_milestone')],
    handler: promoteProjectMilestone,
  },
];

/** PUT (GitLab 12.x) and POST promote a project label to the project's group: 400 outside a group, then admin_group_label there (403). */
function labelPromotionRoutes(path: string): Route[] {
  const ref = promoteRef(path);
  const guards = [
    signedIn,
    ref,
    loadProject(),
    requireAbility('admin_label'),
    projectGroup(() => badRequest('Failed to promote project label to group label')),
    requireAbility('admin_group_label'),
  ];
  return [
    { method: 'put', path, guards, handler: promoteProjectLabel(200, ref) },
    { method: 'post', path, guards, handler: promoteProjectLabel(201, ref) },
  ];
}

/** The milestone routes of projects or groups: readers of the parent list and read them, admin_milestone / admin_group_milestone write. */
function milestoneRoutes(kind: 'project' | 'group'): Route[] {
  const base = kind === 'project' ? '/projects/:id/milestones' : '/groups/:id/milestones';
  const load = kind === 'project' ? loadProject() : loadGroup();
  const write = requireAbility(kind === 'project' ? 'admin_milestone' : 'admin_group_milestone');
  const handlers = kind === 'project' ? projectMilestones : groupMilestones;
  return [
    { method: 'get', path: base, guards: [signedIn, milestoneListParams, load], handler: handlers.list },
    { method: 'post', path: base, guards: [signedIn, milestoneCreateParams, load, write], handler: handlers.create },
    { method: 'get', path: `${base}/:milestone_id`, guards: [signedIn, milestoneId, load], handler: handlers.show },
    { method: 'put', path: `${base}/:milestone_id`, guards: [signedIn, milestoneId, milestoneUpdateParams, load, write], handler: handlers.update },
    { method: 'delete', path: `${base}/:milestone_id`, guards: [signedIn, milestoneId, load, write], handler: handlers.remove },
    { method: 'get', path: `${base}/:milestone_id/issues`, guards: [signedIn, milestoneId, load, paged], handler: handlers.issues },
    { method: 'get', path: `${base}/:milestone_id/merge_requests`, guards: [signedIn, milestoneId, load, paged], handler: handlers.mergeRequests },
  ];
}
