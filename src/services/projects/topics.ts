import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  deleteTopicRow,
  findTopicById,
  findTopicsByNames,
  insertTopic,
  listTopicRows,
  moveTopicProjects,
  replaceProjectTopics,
  topicNameTaken,
  updateTopicRow,
  type TopicWithCount,
} from '../../db/tables/topics.js';
import { badRequest, invalid, notFound, type FieldErrors } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import { removeTopicAvatar, storeTopicAvatar } from '../avatars.js';

/** A topic's attributes as the API read them; absent means "leave as is". */
export interface TopicInput {
  name?: string;
  title?: string;
  description?: string;
}

/** What an update does with the avatar: store a new one, remove it (`avatar=` empty), or leave it. */
export type AvatarChange = { store: UploadedFile } | 'remove' | undefined;

export function getTopic(db: Db, id: number): TopicWithCount {
  const topic = findTopicById(db, id);
  if (!topic) throw notFound('Topic');
  return topic;
}

/** GET /topics: by name or title, optionally only the unused; the most used first. */
export function listTopics(db: Db, filters: { search?: string; withoutProjects?: boolean }, page: Page): Paged<TopicWithCount> {
  return listTopicRows(db, filters, page);
}

/** GitLab's Projects::Topic validations. */
function topicErrors(db: Db, id: number | null, topic: { name: string; title: string; description: string | null }): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, text: string) => (errors[field] ??= []).push(text);
  if (!topic.name.trim()) add('name', "can't be blank");
  else if (topic.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  else if (/[\r\n]/.test(topic.name)) add('name', 'has characters that are not allowed');
  else if (topicNameTaken(db, topic.name, id)) add('name', 'has already been taken');
  if (!topic.title.trim()) add('title', "can't be blank");
  else if (topic.title.length > 255) add('title', 'is too long (maximum is 255 characters)');
  if ((topic.description?.length ?? 0) > 1024) add('description', 'is too long (maximum is 1024 characters)');
  return errors;
}

/** POST /topics (admins): a new topic, with its avatar stored after the row committed. */
export async function createTopic(db: Db, dataDir: string, input: Required<Pick<TopicInput, 'name' | 'title'>> & TopicInput, avatar?: UploadedFile): Promise<TopicWithCount> {
  const id = inTransaction(db, () => {
    const row = { name: input.name.trim(), title: input.title, description: input.description ?? null };
    const errors = topicErrors(db, null, row);
    if (Object.keys(errors).length) throw invalid(errors);
    const now = nowIso();
    return insertTopic(db, { ...row, avatar_path: null, created_at: now, updated_at: now });
  });
  if (avatar) await setTopicAvatar(db, dataDir, id, avatar);
  return getTopic(db, id);
}

/** PUT /topics/:id (admins). */
export async function updateTopic(db: Db, dataDir: string, id: number, input: TopicInput, avatar: AvatarChange): Promise<TopicWithCount> {
  inTransaction(db, () => {
    const current = getTopic(db, id);
    const next = { name: input.name?.trim() ?? current.name, title: input.title ?? current.title, description: input.description ?? current.description };
    const errors = topicErrors(db, id, next);
    if (Object.keys(errors).length) throw invalid(errors);
    updateTopicRow(db, id, { ...next, ...(avatar === 'remove' ? { avatar_path: null } : {}), updated_at: nowIso() });
  });
  if (avatar === 'remove') await removeTopicAvatar(dataDir, id);
  else if (avatar) await setTopicAvatar(db, dataDir, id, avatar.store);
  return getTopic(db, id);
}

async function setTopicAvatar(db: Db, dataDir: string, id: number, file: UploadedFile): Promise<void> {
  const name = await storeTopicAvatar(dataDir, id, file);
  inTransaction(db, () => updateTopicRow(db, id, { avatar_path: name, updated_at: nowIso() }));
}

/** DELETE /topics/:id (admins): the projects lose the topic. */
export async function deleteTopic(db: Db, dataDir: string, id: number): Promise<void> {
  inTransaction(db, () => {
    getTopic(db, id);
    deleteTopicRow(db, id);
  });
  await removeTopicAvatar(dataDir, id);
}

/** POST /topics/merge (admins): the source's projects move to the target, and the source goes (GitLab's Topics::MergeService). */
export async function mergeTopics(db: Db, dataDir: string, sourceId: number, targetId: number): Promise<TopicWithCount> {
  inTransaction(db, () => {
    getTopic(db, sourceId);
    getTopic(db, targetId);
    if (sourceId === targetId) throw badRequest('The source topic and the target topic are identical.');
    moveTopicProjects(db, sourceId, targetId);
    deleteTopicRow(db, sourceId);
  });
  await removeTopicAvatar(dataDir, sourceId);
  return getTopic(db, targetId);
}

/**
 * Gives a project exactly these topics (GitLab's topic_list=): names stripped, blanks dropped, one
 * per name whatever its case; a name no topic has yet becomes a topic titled with it. Runs inside
 * the caller's transaction.
 */
export function setProjectTopics(db: Db, projectId: number, names: readonly string[]): void {
  const wanted: string[] = [];
  for (const name of names.map((value) => value.trim()).filter(Boolean)) {
    if (!wanted.some((kept) => kept.toLowerCase() === name.toLowerCase())) wanted.push(name);
  }
  const tooLong = wanted.find((name) => name.length > 255);
  if (tooLong) throw invalid({ topics: ['is too long (maximum is 255 characters)'] });
  const existing = findTopicsByNames(db, wanted);
  const now = nowIso();
  const ids = wanted.map((name) => existing.find((topic) => topic.name.toLowerCase() === name.toLowerCase())?.id ?? insertTopic(db, { name, title: name, description: null, avatar_path: null, created_at: now, updated_at: now }));
  replaceProjectTopics(db, projectId, ids);
}
