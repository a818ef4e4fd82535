import { Pool } from 'pg';

const pool = new Pool();

export class UserRepository {
  async findByName(name: string) {
    const where = "WHERE name = '" + name + "'";
    const { rows } = await pool.query('SELECT * FROM users ' + where); // VULN: sql-injection
    return rows;
  }
}
