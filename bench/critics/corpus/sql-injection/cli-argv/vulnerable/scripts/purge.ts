import Database from 'better-sqlite3';

const db = new Database('app.db');
const day = process.argv[2];
db.exec(`DELETE FROM audit_log WHERE day < '${day}'`); // VULN: sql-injection
console.log('purged');
