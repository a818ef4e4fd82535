import { WebSocketServer } from 'ws';
import { execFile } from 'node:child_process';

const wss = new WebSocketServer({ port: 9001 });
const SERVICES = ['nginx', 'postgresql', 'redis'];

wss.on('connection', (ws) => {
  ws.on('message', (raw) => {
    const { service } = JSON.parse(raw.toString());
    if (!SERVICES.includes(service)) return ws.send('unknown service');
    execFile('systemctl', ['status', service], (_err, stdout) => ws.send(stdout));
  });
});
