// Limit baseline of the issues-write scenario: express 5 + better-sqlite3 doing, in one
// transaction each, the rows of its two writes. An issue: the project's next iid (internal_ids
// upsert), the issue, its user agent detail, the project's open_issues_count, the `created` event
// and the activity updates (below). A comment on an
// issue: the note in a discussion of its own, the issue's updated_at, the `commented` event and
// the project's and author's activity (conditional updates that only write once an hour and once
// a day, as geoforge's do). The site's own geo capture triggers, in the same SQLite file, append
// the event-log row of each row written, as they do for geoforge.
// JSON body in, the issue or note row as JSON out; no auth, no validation, no relations.
// Usage: node --import tsx issue-create-sqlite.ts <sqlite-file> <port>
import Database from 'better-sqlite3';
import express from 'express';
import { randomBytes } from 'node:crypto';

const [file, port] = process.argv.slice(2);
const db = new Database(file, { fileMustExist: true });
// The site's settings (src/db/connection.ts): WAL, synchronous NORMAL, foreign keys on.
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
const nextIid = db
  .prepare(
    `INSERT INTO internal_ids (usage, scope_id, last_value) VALUES ('issues', ?, 1)
     ON CONFLICT (usage, scope_id) DO UPDATE SET last_value = last_value + 1 RETURNING last_value`,
  )
  .pluck();
const insertIssue = db.prepare(
  'INSERT INTO issues (project_id, iid, title, description, author_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
);
const insertAgent = db.prepare("INSERT INTO user_agent_details (subject_type, subject_id, user_agent, ip_address, created_at) VALUES ('Issue', ?, ?, ?, ?)");
const countOpen = db.prepare('UPDATE projects SET open_issues_count = open_issues_count + 1 WHERE id = ?');
const authorOf = db.prepare("SELECT owner_id FROM namespaces n JOIN projects p ON p.namespace_id = n.id WHERE p.id = ?").pluck();
const insertIssueEvent = db.prepare(
  "INSERT INTO events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at, updated_at) VALUES (?, ?, 'created', 'Issue', ?, ?, ?, ?, ?)",
);
const projectActive = db.prepare('UPDATE projects SET last_activity_at = ? WHERE id = ? AND last_activity_at <= ?');
const userActive = db.prepare('UPDATE users SET last_activity_on = ? WHERE id = ? AND (last_activity_on IS NULL OR last_activity_on < ?)');
/** The project's last_activity_at at most once an hour and the author's last_activity_on once a day, as geoforge's recordEvent. */
function markActive(projectId: number, author: number, now: Date): void {
  const at = now.toISOString();
  projectActive.run(at, projectId, new Date(now.getTime() - 60 * 60 * 1000).toISOString());
  const day = at.slice(0, 10);
  userActive.run(day, author, day);
}
const create = db.transaction((projectId: number, title: string, description: string, agent: string, ip: string) => {
  const now = new Date();
  const at = now.toISOString();
  const author = authorOf.get(projectId) as number;
  const row = insertIssue.get(projectId, nextIid.get(projectId), title, description, author, at, at) as { id: number; iid: number };
  insertAgent.run(row.id, agent, ip, at);
  countOpen.run(projectId);
  insertIssueEvent.run(projectId, author, row.id, row.iid, title, at, at);
  markActive(projectId, author, now);
  return row;
});

const issueOf = db.prepare('SELECT id, title FROM issues WHERE project_id = ? AND iid = ?');
const insertNote = db.prepare(
  "INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, body, discussion_id, created_at, updated_at) VALUES (?, 'Issue', ?, ?, ?, ?, ?, ?) RETURNING *",
);
const touchIssue = db.prepare('UPDATE issues SET updated_at = ? WHERE id = ?');
// The event keeps the note's id as target_iid and the issue's title, as geoforge's recordEvent.
const insertEvent = db.prepare(
  "INSERT INTO events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at, updated_at) VALUES (?, ?, 'commented', 'Note', ?, ?, ?, ?, ?)",
);
const comment = db.transaction((projectId: number, iid: number, body: string) => {
  const issue = issueOf.get(projectId, iid) as { id: number; title: string };
  const author = authorOf.get(projectId) as number;
  const now = new Date();
  const at = now.toISOString();
  const note = insertNote.get(projectId, issue.id, author, body, randomBytes(20).toString('hex'), at, at) as { id: number };
  touchIssue.run(at, issue.id);
  insertEvent.run(projectId, author, note.id, note.id, issue.title, at, at);
  markActive(projectId, author, now);
  return note;
});

const app = express();
app.use(express.json());
app.get('/ready', (_req, res) => res.json({ ok: true }));
app.post('/projects/:id/issues', (req, res) => {
  const body = req.body as { title: string; description?: string };
  const row = create.immediate(Number(req.params.id), body.title, body.description ?? '', req.get('user-agent') ?? '', req.ip ?? '');
  res.status(201).json(row);
});
app.post('/projects/:id/issues/:iid/notes', (req, res) => {
  const row = comment.immediate(Number(req.params.id), Number(req.params.iid), (req.body as { body: string }).body);
  res.status(201).json(row);
});
app.listen(Number(port), '127.0.0.1');
