import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('express model (request sources, route registration)', [
  {
    name: 'query, body, params, headers, cookies and req.get() from handlers registered with get/post/use',
    vulnerable: {
      'src/app.js': `const express = require('express');
const { pool } = require('./db');
const app = express();
const router = express.Router();
router.get('/a/:id', (req, res) => pool.query('SELECT * FROM a WHERE id = ' + req.params.id)); // SINK sql
router.post('/b', (req, res) => pool.query('SELECT * FROM b WHERE x = ' + req.body.x)); // SINK sql
app.use((req, res, next) => { pool.query('INSERT INTO log VALUES (' + req.get('user-agent') + ')'); next(); }); // SINK sql
app.get('/c', (request, response) => pool.query(\`SELECT '\${request.cookies.sid}'\`)); // SINK sql
`,
      'src/db.js': `const { Pool } = require('pg');\nexports.pool = new Pool();\n`,
    },
    safe: {
      'src/app.js': `const express = require('express');
const { pool } = require('./db');
const app = express();
const router = express.Router();
router.get('/a/:id', (req, res) => pool.query('SELECT * FROM a WHERE id = $1', [req.params.id]));
app.use((req, res, next) => { pool.query('INSERT INTO log VALUES ($1)', [req.get('user-agent')]); next(); });
`,
      'src/db.js': `const { Pool } = require('pg');\nexports.pool = new Pool();\n`,
    },
  },
  {
    name: 'a handler whose route validates the body first (express-validator) — still a SQL sink',
    vulnerable: {
      'src/app.ts': `import express from 'express';
import { body } from 'express-validator';
import { pool } from './db';
const app = express();
app.post('/u', body('name').isString(), (req, res) => pool.query("SELECT '" + req.body.name + "'")); // SINK sql
`,
      'src/db.ts': `import { Pool } from 'pg';\nexport const pool = new Pool();\n`,
    },
  },
]);
