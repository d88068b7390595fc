import { mergeabilityChecksSettled } from '../../src/services/merge-requests/mergeability.js';
import { addMember, createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import type { TestSite } from '../helpers/site.js';

/**
 * One seeded world for the route-table-driven suites (test/fuzz, test/authz): a group with a project
 * that has a repository, an issue, a merge request, notes, awards, a milestone, labels, a board with a
 * list, an epic, a wiki page (and a group wiki page), a hook, a push mirror, a badge, a topic, a release with an asset link and snippets, so that every path
 * parameter of the route table can be
 * filled with a real id.
 */
export interface World {
  group: TestGroup;
  project: { id: number; path_with_namespace: string };
  /** A developer of the project. */
  member: TestUser;
  /** Real values by path parameter name; `fill` picks group or merge request or epic values by the path. */
  values: Record<string, string>;
  group_values: Record<string, string>;
  merge_request_values: Record<string, string>;
  epic_values: Record<string, string>;
  /** The world's project topic (/topics/:id). */
  topic_values: Record<string, string>;
  /** The release (its own tag, so the tag routes keep theirs) and its asset link, for /projects/:id/releases/... paths. */
  release_values: Record<string, string>;
  /** The project's snippet (the project's visibility, by root) and its note, and a personal snippet of root's of the same visibility. */
  snippet_values: Record<string, string>;
}

export async function seedWorld(site: TestSite, options: { visibility?: string; member?: TestUser; group?: TestGroup } = {}): Promise<World> {
  const visibility = options.visibility ?? 'private';
  const member = options.member ?? (await createUser(site));
  const group = options.group ?? (await createGroup(site, { visibility }));
  const project = await createProject(site, { namespace_id: group.id, visibility, initialize_with_readme: true });
  await addMember(site, 'projects', project.id, member, 30);
  const post = async (path: string, body: Record<string, unknown>) => {
    const response = await site.api(path, { method: 'POST', body });
    if (response.status !== 201) throw new Error(`seed ${path}: ${response.status} ${response.text}`);
    return response.body;
  };
  const p = `/projects/${project.id}`;
  const g = `/groups/${group.id}`;
  const milestone = await post(`${p}/milestones`, { title: 'v1' });
  const groupMilestone = await post(`${g}/milestones`, { title: `g${project.id}` });
  const bug = await post(`${p}/labels`, { name: 'bug', color: '#ff0000' });
  const team = await post(`${g}/labels`, { name: `team${project.id}`, color: '#336699' });
  const issue = await post(`${p}/issues`, { title: 'Seeded', labels: 'bug', milestone_id: milestone.id, assignee_ids: [member.id], weight: 2 });
  const linked = await post(`${p}/issues`, { title: 'Linked' });
  const issueLink = await post(`${p}/issues/${issue.iid}/links`, { target_project_id: project.id, target_issue_iid: linked.iid, link_type: 'blocks' });
  const links = await site.api(`${p}/issues/${issue.iid}/links`);
  const note = await post(`${p}/issues/${issue.iid}/notes`, { body: 'a note' });
  const discussion = await post(`${p}/issues/${issue.iid}/discussions`, { body: 'a thread' });
  const award = await post(`${p}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' });
  await post(`${p}/issues/${issue.iid}/notes/${note.id}/award_emoji`, { name: 'tada' });
  const board = await post(`${p}/boards`, { name: 'Board' });
  const list = await post(`${p}/boards/${board.id}/lists`, { label_id: bug.id });
  const groupBoard = await post(`${g}/boards`, { name: 'Group board' });
  const groupList = await post(`${g}/boards/${groupBoard.id}/lists`, { label_id: team.id });
  const epic = await post(`${g}/epics`, { title: 'Epic' });
  const epicIssue = await post(`${g}/epics/${epic.iid}/issues/${issue.id}`, {});
  const epicNote = await post(`${g}/epics/${epic.iid}/notes`, { body: 'on the epic' });
  await post(`${p}/repository/commits`, { branch: 'topic', start_branch: 'master', commit_message: 'topic', actions: [{ action: 'create', file_path: 'dir/a.txt', content: 'a\n' }] });
  const mergeRequest = await post(`${p}/merge_requests`, { source_branch: 'topic', target_branch: 'master', title: 'MR' });
  const mergeRequestNote = await post(`${p}/merge_requests/${mergeRequest.iid}/notes`, { body: 'on the MR' });
  const versions = await site.api(`${p}/merge_requests/${mergeRequest.iid}/versions`);
  const wiki = await post(`${p}/wikis`, { title: 'Home', content: 'hello' });
  const groupWiki = await post(`${g}/wikis`, { title: 'Group home', content: 'hello' });
  const hook = await post(`${p}/hooks`, { url: 'http://127.0.0.1:9/hook' });
  // A push mirror, disabled (GitLab's default): nothing is pushed to it.
  const mirror = await post(`${p}/remote_mirrors`, { url: 'http://127.0.0.1:9/mirror.git' });
  const badge = await post(`${p}/badges`, { link_url: 'http://example.com', image_url: 'http://example.com/b.png' });
  await post(`${p}/repository/tags`, { tag_name: 'v1.0', ref: 'master' });
  const topic = await post('/topics', { name: `topic-${project.id}`, title: `Topic ${project.id}` });
  const release = await post(`${p}/releases`, { tag_name: 'rel-1.0', ref: 'master', assets: { links: [{ name: 'seeded', url: 'https://example.com/seeded' }] } });
  const snippet = await post(`${p}/snippets`, { title: 'Snippet', visibility, files: [{ file_path: 'dir/a.txt', content: 'a\n' }] });
  const snippetNote = await post(`${p}/snippets/${snippet.id}/notes`, { body: 'on the snippet' });
  const personalSnippet = await post('/snippets', { title: 'Personal', visibility, files: [{ file_path: 'dir/a.txt', content: 'a\n' }] });
  const commits = await site.api(`${p}/repository/commits`);
  const sha = commits.body[0].id as string;
  const labelEvents = await site.api(`${p}/issues/${issue.iid}/resource_label_events`);
  await mergeabilityChecksSettled(site.site.ctx);
  const values: Record<string, string> = {
    id: String(project.id),
    project_id: String(project.id),
    user_id: String(member.id),
    issue_iid: String(issue.iid),
    issue_id: String(issue.id),
    issue_link_id: String(links.body[0]?.issue_link_id ?? issueLink.id ?? 1),
    note_id: String(note.id),
    discussion_id: discussion.id,
    award_id: String(award.id),
    milestone_id: String(milestone.id),
    name: 'bug',
    label_id: String(bug.id),
    event_id: String(labelEvents.body[0]?.id ?? 1),
    board_id: String(board.id),
    list_id: String(list.id),
    slug: wiki.slug,
    hook_id: String(hook.id),
    badge_id: String(badge.id),
    mirror_id: String(mirror.id),
    sha,
    branch: 'topic',
    file_path: 'dir%2Fa.txt',
    tag_name: 'v1.0',
    key: 'color',
  };
  return {
    group,
    project,
    member,
    values,
    group_values: { id: String(group.id), milestone_id: String(groupMilestone.id), name: team.name, board_id: String(groupBoard.id), list_id: String(groupList.id), slug: groupWiki.slug },
    merge_request_values: { merge_request_iid: String(mergeRequest.iid), note_id: String(mergeRequestNote.id), version_id: String(versions.body[0]?.id ?? 1) },
    epic_values: { epic_iid: String(epic.iid), note_id: String(epicNote.id), epic_issue_id: String(epicIssue.epic_issue_id ?? epicIssue.id) },
    topic_values: { id: String(topic.id) },
    release_values: { tag_name: release.tag_name, link_id: String(release.assets.links[0].id) },
    snippet_values: { snippet_id: String(snippet.id), note_id: String(snippetNote.id), personal_snippet_id: String(personalSnippet.id), ref: 'main' },
  };
}

/** The route's path with every parameter filled with the world's real value for it (or `1`). */
export function fill(world: World, path: string, override: (name: string) => string | undefined = () => undefined): string {
  const onGroup = path.startsWith('/groups/');
  const onUser = path.startsWith('/users/');
  return path.replace(/:(\w+)/g, (_, name: string) => {
    const given = override(name);
    if (given !== undefined) return given;
    if (name === 'id' && onUser) return String(world.member.id);
    if (name === 'id' && path.startsWith('/snippets/')) return world.snippet_values.personal_snippet_id!;
    if (path.includes('/snippets/') && name in world.snippet_values) return world.snippet_values[name]!;
    if (path.includes('/merge_requests/') && name in world.merge_request_values) return world.merge_request_values[name]!;
    if (path.includes('epics/') && name in world.epic_values) return world.epic_values[name]!;
    if (path.startsWith('/projects/:id/releases/') && name in world.release_values) return world.release_values[name]!;
    if (onGroup && name in world.group_values) return world.group_values[name]!;
    if (path.startsWith('/topics/') && name in world.topic_values) return world.topic_values[name]!;
    return world.values[name] ?? '1';
  });
}
