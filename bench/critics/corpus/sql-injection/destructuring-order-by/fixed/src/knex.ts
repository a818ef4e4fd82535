import createKnex from 'knex';
export default createKnex({ client: 'pg', connection: process.env.DATABASE_URL });
