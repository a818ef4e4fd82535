import { Pool } from 'pg';

const pool = new Pool();

class AuditQuery {
  constructor(private readonly actor: string) {}

  run() {
    return pool.query('SELECT * FROM audit WHERE actor = $1', [this.actor]);
  }
}

export function handler(req: { query: { actor: string } }, res: { json(v: unknown): void }) {
  new AuditQuery(req.query.actor).run().then((r) => res.json(r.rows));
}
