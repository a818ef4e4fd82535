const { Pool } = require('pg');

const { PGUSER, PGPASSWORD, PGHOST } = process.env;
module.exports = new Pool({
  connectionString: `postgres://${PGUSER}:${PGPASSWORD}@${PGHOST}:5432/warehouse`,
});
