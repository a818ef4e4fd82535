const { Pool } = require('pg');
exports.pool = new Pool();
