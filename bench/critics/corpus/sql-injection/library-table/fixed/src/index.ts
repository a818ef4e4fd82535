export interface Queryable {
  query(sql: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export class AuditStore {
  constructor(private readonly db: Queryable) {}

  async eventsOf(actor: string) {
    return this.db.query('SELECT * FROM audit_events WHERE actor = $1 ORDER BY at DESC', [actor]);
  }
}
