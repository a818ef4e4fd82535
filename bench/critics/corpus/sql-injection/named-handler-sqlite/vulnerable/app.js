const express = require('express');
const sqlite3 = require('sqlite3');

const db = new sqlite3.Database(':memory:');
const app = express();

function getUser(req, res) {
  const id = req.params.id;
  db.get('SELECT * FROM users WHERE id = ' + id, (err, row) => res.json(row)); // VULN: sql-injection
}

app.get('/user/:id', getUser);
