// Limit baseline (a) of scenario 1: express 5 + better-sqlite3, a prepared primary-key read and
// JSON of the row, nothing else. Usage: node --import tsx express-sqlite.ts <sqlite-file> <port>
import Database from 'better-sqlite3';
import express from 'express';

const [file, port] = process.argv.slice(2);
const db = new Database(file, { readonly: true, fileMustExist: true });
const userById = db.prepare('SELECT * FROM users WHERE id = ?');

const app = express();
app.get('/users/:id', (req, res) => {
  const row = userById.get(Number(req.params.id));
  if (row) res.json(row);
  else res.sendStatus(404);
});
app.listen(Number(port), '127.0.0.1');
