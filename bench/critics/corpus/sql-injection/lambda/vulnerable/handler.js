const { Client } = require('pg');

exports.handler = async (event) => {
  const body = JSON.parse(event.body);
  const client = new Client();
  await client.connect();
  const res = await client.query("UPDATE users SET nickname = '" + body.nickname + "' WHERE id = 1"); // VULN: sql-injection
  await client.end();
  return { statusCode: 200, body: JSON.stringify(res.rowCount) };
};
