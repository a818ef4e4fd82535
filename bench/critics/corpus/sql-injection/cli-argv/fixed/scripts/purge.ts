import Database from 'better-sqlite3';

const db = new Database('app.db');
const day = process.argv[2];
db.prepare('DELETE FROM audit_log WHERE day < ?').run(day);
console.log('purged');
