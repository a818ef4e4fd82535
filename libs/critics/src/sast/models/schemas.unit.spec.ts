import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('schemas model (zod, Joi)', [
  {
    name: 'a string schema validates but does not clean for SQL',
    vulnerable: {
      'src/api.ts': `import { z } from 'zod';
import { db } from './db';
const Query = z.object({ name: z.string(), sort: z.string() });
export function list(req: { query: unknown }) {
  const q = Query.parse(req.query);
  return db.query('SELECT * FROM t WHERE n = ' + q.name); // SINK sql
}
`,
      'src/db.ts': `import { Pool } from 'pg';\nexport const db = new Pool();\n`,
    },
    safe: {
      'src/api.ts': `import { z } from 'zod';
import Joi from 'joi';
import { db } from './db';
const Query = z.object({ id: z.coerce.number().int(), sort: z.enum(['name', 'date']), ref: z.string().uuid() });
const Legacy = Joi.object({ page: Joi.number() });
export function list(req: { query: unknown; body: unknown }) {
  const q = Query.parse(req.query);
  db.query('SELECT * FROM t WHERE id = ' + q.id + ' AND ref = ' + q.ref + ' ORDER BY ' + q.sort);
  const { value } = Legacy.validate(req.body);
  return db.query('SELECT * FROM t OFFSET ' + value.page);
}
`,
      'src/db.ts': `import { Pool } from 'pg';\nexport const db = new Pool();\n`,
    },
  },
]);
