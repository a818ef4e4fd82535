import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('websocket model', [
  {
    name: 'socket.io event payloads and ws messages reaching a shell and a query',
    vulnerable: {
      'src/chat.ts': `import { Server } from 'socket.io';
import { WebSocketServer } from 'ws';
import { exec } from 'node:child_process';
import { pool } from './db';
const io = new Server(3000);
io.on('connection', (socket) => {
  socket.on('ping-host', (host: string, ack: (out: string) => void) => {
    exec('ping -c 1 ' + host, (_e, out) => ack(out)); // SINK command
  });
});
const wss = new WebSocketServer({ port: 8080 });
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    pool.query(\`SELECT * FROM rooms WHERE name = '\${data}'\`); // SINK sql
  });
});
`,
      'src/db.ts': `export const pool: any = {};\n`,
    },
    safe: {
      'src/chat.ts': `import { Server } from 'socket.io';
import { WebSocketServer } from 'ws';
import { execFile } from 'node:child_process';
import { pool } from './db';
const io = new Server(3000);
io.on('connection', (socket) => {
  socket.on('ping-host', (host: string, ack: (out: string) => void) => {
    execFile('ping', ['-c', '1', String(host)], (_e, out) => ack(out));
  });
});
const wss = new WebSocketServer({ port: 8080 });
wss.on('connection', (ws) => {
  ws.on('message', (data) => {
    pool.query('SELECT * FROM rooms WHERE name = $1', [String(data)]);
  });
});
`,
      'src/db.ts': `export const pool: any = {};\n`,
    },
  },
]);
