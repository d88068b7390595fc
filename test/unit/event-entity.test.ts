import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../src/db/tables/events.js';
import type { ProjectRow } from '../../src/db/tables/projects.js';
import { event, type EventRelations } from '../../src/entities/events.js';

const ctx = { externalUrl: 'https://forge.example' };
const none: EventRelations = { users: new Map(), projects: new Map(), notes: new Map(), issues: new Map() };

const row = (columns: Partial<EventRow>): EventRow => ({
  id: 1,
  project_id: 7,
  group_id: null,
  author_id: 3,
  action: 'created',
  target_type: null,
  target_id: null,
  target_iid: null,
  target_title: null,
  push_data: null,
  created_at: '2024-05-01T10:00:00.000Z',
  updated_at: '2024-05-01T10:00:00.000Z',
  ...columns,
});

const push = (action: string) => JSON.stringify({ commit_count: 1, action, ref_type: 'branch', commit_from: null, commit_to: null, ref: 'main', commit_title: null, ref_count: null });
const issue = { target_type: 'Issue' as const, target_id: 5, target_iid: 2, target_title: 'Bug' };

describe('the Event entity', () => {
  it('names each action as GitLab’s Event#action_name does', () => {
    const name = (columns: Partial<EventRow>, relations = none) => event(row(columns), relations, ctx).action_name;
    expect(name({ action: 'pushed', push_data: push('created') })).toBe('pushed new');
    expect(name({ action: 'pushed', push_data: push('removed') })).toBe('deleted');
    expect(name({ action: 'pushed', push_data: push('pushed') })).toBe('pushed to');
    expect(name({ action: 'created', ...issue })).toBe('opened');
    expect(name({ action: 'reopened', ...issue })).toBe('opened');
    expect(name({ action: 'closed', ...issue })).toBe('closed');
    expect(name({ action: 'merged', ...issue, target_type: 'MergeRequest' })).toBe('accepted');
    expect(name({ action: 'approved', ...issue, target_type: 'MergeRequest' })).toBe('approved');
    expect(name({ action: 'commented', target_type: 'Note', target_id: 9, target_iid: 9 })).toBe('commented on');
    expect(name({ action: 'joined' })).toBe('joined');
    expect(name({ action: 'left' })).toBe('left');
    expect(name({ action: 'expired' })).toBe('removed due to membership expiration from');
    expect(name({ action: 'destroyed', target_type: 'Milestone', target_id: 4, target_iid: 1 })).toBe('destroyed');
    expect(name({ action: 'created', target_type: 'WikiPage', target_id: 4 })).toBe('created');
    expect(name({ action: 'updated', target_type: 'WikiPage', target_id: 4 })).toBe('updated');
    expect(name({ action: 'created' })).toBe('created');
    const imported = { ...none, projects: new Map([[7, { id: 7, import_url: 'https://example.com/a.git' } as ProjectRow]]) };
    expect(name({ action: 'created' }, imported)).toBe('imported');
  });

  it('shows push_data on pushes only, and no author once the author is gone', () => {
    const pushed = event(row({ action: 'pushed', push_data: push('pushed') }), none, ctx);
    expect(pushed).toMatchObject({ push_data: { action: 'pushed', ref: 'main' }, author_username: null });
    expect(pushed).not.toHaveProperty('author');
    expect(event(row({ action: 'created', ...issue }), none, ctx)).not.toHaveProperty('push_data');
  });

  it('keeps the recorded title of a target the page did not load', () => {
    expect(event(row({ action: 'created', ...issue }), none, ctx).target_title).toBe('Bug');
  });
});
