// Limit baseline of the issues-write scenario: express 5 + better-sqlite3 doing the rows an issue
// create writes, in one transaction: the project's next iid (internal_ids upsert), the issue,
// its user agent detail and the project's open_issues_count; the site's own geo capture
// triggers, in the same SQLite file, append the event-log row of each, as they do for geoforge.
// JSON body in, the issue row as JSON out; no auth, no validation, no relations.
// Usage: node --import tsx issue-create-sqlite.ts <sqlite-file> <port>
import Database from 'better-sqlite3';
import express from 'express';

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
const create = db.transaction((projectId: number, title: string, description: string, agent: string, ip: string) => {
  const now = new Date().toISOString();
  const row = insertIssue.get(projectId, nextIid.get(projectId), title, description, authorOf.get(projectId), now, now) as { id: number };
  insertAgent.run(row.id, agent, ip, now);
  countOpen.run(projectId);
  return row;
});

const app = express();
app.use(express.json());
app.get('/ready', (_req, res) => res.json({ ok: true }));
app.post('/projects/:id/issues', (req, res) => {
  const body = req.body as { title: string; description?: string };
  const row = create.immediate(Number(req.params.id), body.title, body.description ?? '', req.get('user-agent') ?? '', req.ip ?? '');
  res.status(201).json(row);
});
app.listen(Number(port), '127.0.0.1');
