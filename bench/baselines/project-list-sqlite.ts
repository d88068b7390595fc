// Limit baseline of scenario 2 (lists-deep-page): express 5 + better-sqlite3, one page of
// projects by geoforge's default order and JSON of the rows, nothing else: no auth, no
// relations, no count. The WHERE is the one geoforge's list has for an admin (archived hidden),
// so both do the same index walk. Usage: node --import tsx project-list-sqlite.ts <sqlite-file> <port>
import Database from 'better-sqlite3';
import express from 'express';

const [file, port] = process.argv.slice(2);
const db = new Database(file, { readonly: true, fileMustExist: true });
const page = db.prepare('SELECT * FROM projects WHERE archived = 0 ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?');

const app = express();
app.get('/projects', (req, res) => {
  const current = Math.max(1, Number(req.query.page) || 1);
  const perPage = Math.min(100, Math.max(1, Number(req.query.per_page) || 20));
  res.json(page.all(perPage, (current - 1) * perPage));
});
app.listen(Number(port), '127.0.0.1');
