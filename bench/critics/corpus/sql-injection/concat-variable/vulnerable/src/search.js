const express = require('express');
const mysql = require('mysql2/promise');

const router = express.Router();
const db = mysql.createPool({ host: 'localhost', user: 'app', database: 'shop' });

router.get('/search', async function (req, res) {
  const term = req.query.q;
  let sql = "SELECT * FROM products WHERE name LIKE '%" + term + "%'";
  sql += ' ORDER BY name';
  const [rows] = await db.query(sql); // VULN: sql-injection
  res.json(rows);
});

module.exports = router;
