const { Pool } = require('pg');

module.exports = new Pool({
  connectionString: 'postgres://reporting:Tr0ub4dor&3x@db.internal:5432/warehouse', // VULN: secret
});
