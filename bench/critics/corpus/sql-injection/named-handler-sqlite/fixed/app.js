const express = require('express');
const sqlite3 = require('sqlite3');

const db = new sqlite3.Database(':memory:');
const app = express();

function getUser(req, res) {
  const id = parseInt(req.params.id, 10);
  if (Number.isNaN(id)) return res.status(400).end();
  db.get('SELECT * FROM users WHERE id = ' + id, (err, row) => res.json(row));
}

app.get('/user/:id', getUser);
