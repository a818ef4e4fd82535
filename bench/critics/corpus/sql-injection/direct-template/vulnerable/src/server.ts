import express from 'express';
import { Pool } from 'pg';

const app = express();
const pool = new Pool({ connectionString: process.env.DATABASE_URL });

app.get('/users/:id', async (req, res) => {
  const result = await pool.query(`SELECT id, name FROM users WHERE id = ${req.params.id}`); // VULN: sql-injection
  res.json(result.rows);
});

app.listen(3000);
