const mysql = require('mysql');
const connection = mysql.createConnection({ host: 'localhost' });
const COLUMNS = ['title', 'author', 'year'];

exports.search = function (req, res) {
  const clauses = [];
  const values = [];
  for (const key of Object.keys(req.query)) {
    if (!COLUMNS.includes(key)) continue;
    clauses.push(key + ' = ?');
    values.push(req.query[key]);
  }
  const where = clauses.length > 0 ? clauses.join(' AND ') : '1=1';
  connection.query('SELECT * FROM books WHERE ' + where, values, function (err, rows) {
    if (err) return res.status(500).end();
    res.json(rows);
  });
};
