const { pool } = require('../db');

module.exports = function attach(io) {
  io.on('connection', (client) => {
    client.on('search', async (term, ack) => {
      const { rows } = await pool.query('SELECT id, title FROM articles WHERE title ILIKE $1', [`%${term}%`]);
      ack(rows);
    });
  });
};
