const express = require('express');
const mysql = require('mysql2/promise');

const router = express.Router();
const db = mysql.createPool({ host: 'localhost', user: 'app', database: 'shop' });

router.get('/search', async function (req, res) {
  const term = req.query.q;
  const sql = 'SELECT * FROM products WHERE name LIKE ? ORDER BY name';
  const [rows] = await db.query(sql, ['%' + term + '%']);
  res.json(rows);
});

module.exports = router;
