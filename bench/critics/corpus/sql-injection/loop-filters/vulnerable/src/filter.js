const mysql = require('mysql');
const connection = mysql.createConnection({ host: 'localhost' });

exports.search = function (req, res) {
  let where = '1=1';
  for (const key of Object.keys(req.query)) {
    where += ' AND ' + key + " = '" + req.query[key] + "'";
  }
  connection.query('SELECT * FROM books WHERE ' + where, function (err, rows) { // VULN: sql-injection
    if (err) return res.status(500).end();
    res.json(rows);
  });
};
