import { Pool } from 'pg';

const pool = new Pool();

export class UserRepository {
  async findByName(name: string) {
    const { rows } = await pool.query('SELECT * FROM users WHERE name = $1', [name]);
    return rows;
  }
}
