import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/api/index.js';
import { mergeabilityChecksSettled } from '../../src/services/merge-requests/mergeability.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { expectReadsWriteNothing, seeder, stampCallers } from '../helpers/reads.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Every GET route of the tracker (issues, merge requests, labels, milestones, notes, discussions,
 * award emoji, resource events, todos, events), read from the route table itself, answers without a 5xx and
 * writes nothing that replicates: a secondary serves these reads from its own copy, and a GET that
 * wrote would differ there (DESIGN, "No writes on reads").
 */
const TRACKER = /\/(issues|merge_requests|labels|milestones|notes|discussions|award_emoji|resource_\w+_events|todos|events)\b/;

let site: TestSite;
let member: TestUser;
const params: Record<string, string> = {};
/** What the epic routes (issue 16) name instead: the epic and its own notes and awards. */
const epicParams: Record<string, string> = {};
/** What the project snippet routes name instead: the snippet's own note, thread and awards. */
const snippetParams: Record<string, string> = {};
/** What the merge request routes (issue 15) name instead: the merge request, its version, notes, awards and events. */
const mergeRequestParams: Record<string, string> = {};

beforeAll(async () => {
  site = await startSite();
  member = await createUser(site);
  const group = await createGroup(site, { visibility: 'private' });
  const project = await createProject(site, { namespace_id: group.id, visibility: 'private' });
  await addMember(site, 'projects', project.id, member, 30);
  const post = seeder(site);
  const milestone = await post(`/projects/${project.id}/milestones`, { title: 'v1' });
  const groupMilestone = await post(`/groups/${group.id}/milestones`, { title: 'g1' });
  await post(`/groups/${group.id}/labels`, { name: 'team', color: '#336699' });
  const issue = await post(`/projects/${project.id}/issues`, { title: 'Read me', labels: 'bug', milestone_id: milestone.id, assignee_ids: [member.id], weight: 2 });
  await site.api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', body: { state_event: 'close' } });
  const note = await post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: `@${member.username} look` });
  const discussion = await post(`/projects/${project.id}/issues/${issue.iid}/discussions`, { body: 'A thread' }, member.token);
  const award = await post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' });
  const noteAward = await post(`/projects/${project.id}/issues/${issue.iid}/notes/${note.id}/award_emoji`, { name: 'tada' });
  const labelEvents = await site.api(`/projects/${project.id}/issues/${issue.iid}/resource_label_events`);
  const weightEvents = await site.api(`/projects/${project.id}/issues/${issue.iid}/resource_weight_events`);
  const linked = await post(`/projects/${project.id}/issues`, { title: 'Linked' });
  await post(`/projects/${project.id}/issues/${issue.iid}/links`, { target_project_id: project.id, target_issue_iid: linked.iid });
  const links = await site.api(`/projects/${project.id}/issues/${issue.iid}/links`);
  // A project snippet with a note and an award: the snippet notes routes share the tracker's.
  const snippet = await post(`/projects/${project.id}/snippets`, { title: 'Snippet', visibility: 'private', files: [{ file_path: 'a.txt', content: 'a\n' }] });
  const snippetPath = `/projects/${project.id}/snippets/${snippet.id}`;
  const snippetNote = await post(`${snippetPath}/notes`, { body: 'on the snippet' });
  const snippetDiscussion = await post(`${snippetPath}/discussions`, { body: 'A snippet thread' });
  const snippetAward = await post(`${snippetPath}/award_emoji`, { name: 'thumbsup' });
  const snippetNoteAward = await post(`${snippetPath}/notes/${snippetNote.id}/award_emoji`, { name: 'tada' });
  Object.assign(snippetParams, { note_id: String(snippetNote.id), discussion_id: snippetDiscussion.id, award_id: String(snippetAward.id), note_award_id: String(snippetNoteAward.id) });
  // A board list's issues (GET .../boards/:board_id/lists/:list_id/issues) on a project and a group board.
  const bug = (await site.api(`/projects/${project.id}/labels/bug`)).body;
  const team = (await site.api(`/groups/${group.id}/labels/team`)).body;
  const board = await post(`/projects/${project.id}/boards`, { name: 'Board' });
  const list = await post(`/projects/${project.id}/boards/${board.id}/lists`, { label_id: bug.id });
  const groupBoard = await post(`/groups/${group.id}/boards`, { name: 'Group board' });
  const groupList = await post(`/groups/${group.id}/boards/${groupBoard.id}/lists`, { label_id: team.id });
  // An epic (issue 16) with the issue, a note, a thread and awards: its notes routes share these paths.
  const epic = await post(`/groups/${group.id}/epics`, { title: 'Epic', labels: ['team'] });
  await post(`/groups/${group.id}/epics/${epic.iid}/issues/${issue.id}`, {});
  const epicNote = await post(`/groups/${group.id}/epics/${epic.iid}/notes`, { body: 'on the epic' });
  const epicDiscussion = await post(`/groups/${group.id}/epics/${epic.iid}/discussions`, { body: 'An epic thread' });
  const epicAward = await post(`/groups/${group.id}/epics/${epic.iid}/award_emoji`, { name: 'thumbsup' });
  const epicNoteAward = await post(`/groups/${group.id}/epics/${epic.iid}/notes/${epicNote.id}/award_emoji`, { name: 'tada' });
  // A merge request (issue 15) with two versions, a label event, a note, a diff thread and awards.
  const commit = (branch: string, file: string, start?: string) =>
    post(`/projects/${project.id}/repository/commits`, { branch, commit_message: file, actions: [{ action: 'create', file_path: file, content: `${file}\n` }], ...(start ? { start_branch: start } : {}) });
  await commit('master', 'README.md');
  await commit('topic', 'a.txt', 'master');
  const mergeRequest = await post(`/projects/${project.id}/merge_requests`, { source_branch: 'topic', target_branch: 'master', title: `Fixes #${issue.iid}` });
  await commit('topic', 'b.txt');
  await site.api(`/projects/${project.id}/merge_requests/${mergeRequest.iid}`, { method: 'PUT', body: { labels: 'bug', milestone_id: milestone.id } });
  // Approval rules (ee) of the project and of the merge request, for their /:approval_rule_id reads.
  const projectRule = await post(`/projects/${project.id}/approval_rules`, { name: 'Project rule', approvals_required: 1 });
  const mergeRequestRule = await post(`/projects/${project.id}/merge_requests/${mergeRequest.iid}/approval_rules`, { name: 'Merge request rule', approvals_required: 1 });
  await site.api(`/projects/${project.id}/merge_requests/${mergeRequest.iid}`, { method: 'PUT', body: { state_event: 'close' } });
  const mergeRequestNote = await post(`/projects/${project.id}/merge_requests/${mergeRequest.iid}/notes`, { body: 'on the merge request' });
  const position = { ...mergeRequest.diff_refs, position_type: 'text', new_path: 'a.txt', new_line: 1 };
  const mergeRequestDiscussion = await post(`/projects/${project.id}/merge_requests/${mergeRequest.iid}/discussions`, { body: 'A diff thread', position });
  const mergeRequestAward = await post(`/projects/${project.id}/merge_requests/${mergeRequest.iid}/award_emoji`, { name: 'thumbsup' });
  const mergeRequestNoteAward = await post(`/projects/${project.id}/merge_requests/${mergeRequest.iid}/notes/${mergeRequestNote.id}/award_emoji`, { name: 'tada' });
  const eventOf = async (kind: string) => String((await site.api(`/projects/${project.id}/merge_requests/${mergeRequest.iid}/resource_${kind}_events`)).body[0].id);
  const versions = await site.api(`/projects/${project.id}/merge_requests/${mergeRequest.iid}/versions`);
  Object.assign(mergeRequestParams, {
    merge_request_iid: String(mergeRequest.iid),
    approval_rule_id: String(mergeRequestRule.id),
    version_id: String(versions.body[1].id),
    note_id: String(mergeRequestNote.id),
    discussion_id: mergeRequestDiscussion.id,
    award_id: String(mergeRequestAward.id),
    note_award_id: String(mergeRequestNoteAward.id),
    label_event_id: await eventOf('label'),
    milestone_event_id: await eventOf('milestone'),
    state_event_id: await eventOf('state'),
  });
  Object.assign(epicParams, {
    epic_iid: String(epic.iid),
    note_id: String(epicNote.id),
    discussion_id: epicDiscussion.id,
    award_id: String(epicAward.id),
    note_award_id: String(epicNoteAward.id),
  });
  Object.assign(params, {
    issue_iid: String(issue.iid),
    note_id: String(note.id),
    discussion_id: discussion.id,
    award_id: String(award.id),
    note_award_id: String(noteAward.id),
    milestone_id: String(milestone.id),
    group_milestone_id: String(groupMilestone.id),
    name: 'bug',
    group_label: 'team',
    event_id: String(labelEvents.body[0].id),
    weight_event_id: String(weightEvents.body[0].id),
    approval_rule_id: String(projectRule.id),
    issue_link_id: String(links.body[0].issue_link_id),
    snippet_id: String(snippet.id),
    board_id: String(board.id),
    list_id: String(list.id),
    group_board_id: String(groupBoard.id),
    group_list_id: String(groupList.id),
    projectId: String(project.id),
    groupId: String(group.id),
  });
  await stampCallers(site, member);
});
afterAll(() => site.stop());


/** The route's path with its parameters filled from the seeded project, group and issue. */
function fill(path: string): string {
  const id = path.startsWith('/groups/') ? params.groupId : path.startsWith('/users/') ? String(member.id) : params.projectId;
  const onGroup = path.startsWith('/groups/');
  const onNote = path.includes('/notes/:note_id/award_emoji');
  const onEpic = path.includes('/epics/');
  const onSnippet = path.includes('/snippets/');
  const onMergeRequest = path.includes('/merge_requests/');
  const value = (name: string) => {
    if (name === 'id') return id;
    if (onMergeRequest && name === 'award_id' && onNote) return mergeRequestParams.note_award_id!;
    if (onMergeRequest && name === 'event_id') return mergeRequestParams[`${/resource_(\w+)_events/.exec(path)![1]}_event_id`]!;
    if (name === 'event_id' && path.includes('/resource_weight_events/')) return params.weight_event_id!;
    if (onMergeRequest && name in mergeRequestParams) return mergeRequestParams[name]!;
    if (onSnippet && name === 'award_id' && onNote) return snippetParams.note_award_id!;
    if (onSnippet && name in snippetParams) return snippetParams[name]!;
    if (onEpic && name === 'award_id' && onNote) return epicParams.note_award_id!;
    if (onEpic && name in epicParams) return epicParams[name]!;
    if (name === 'award_id' && onNote) return params.note_award_id!;
    if (onGroup && name === 'milestone_id') return params.group_milestone_id!;
    if (onGroup && name === 'name') return params.group_label!;
    if (onGroup && (name === 'board_id' || name === 'list_id')) return params[`group_${name}`]!;
    return params[name]!;
  };
  return path.replace(/:(\w+)/g, (_, name: string) => value(name));
}

describe('GET routes of the tracker', () => {
  // A commit's notes and discussions are the repository's reads (repository-reads.test.ts); the merging reads
  // (merge_ref, approvals) answer by the merge request's state: merge-request-merges-reads.test.ts covers them.
  const routes = apiRoutes('test', [], null).filter(
    (route) => route.method === 'get' && TRACKER.test(route.path) && !route.path.includes('/repository/') && !/\/(merge_ref|approvals)$/.test(route.path),
  );

  it('are found in the route table', () => {
    expect(routes.length).toBeGreaterThan(30);
  });

  it('answer below 500 and write no replicated row, for an admin, a member and anonymous callers', async () => {
    // The background mergeability check of the seeded merge request writes on its own; it is done before the reads start.
    await mergeabilityChecksSettled(site.site.ctx);
    await expectReadsWriteNothing(site, member, routes.map((route) => ({ path: route.path, url: fill(route.path) })), { adminOk: true });
  });
});
