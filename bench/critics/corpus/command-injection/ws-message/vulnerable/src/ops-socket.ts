import { WebSocketServer } from 'ws';
import { exec } from 'node:child_process';

const wss = new WebSocketServer({ port: 9001 });

wss.on('connection', (ws) => {
  ws.on('message', (raw) => {
    const { service } = JSON.parse(raw.toString());
    exec(`systemctl status ${service}`, (_err, stdout) => ws.send(stdout)); // VULN: command-injection
  });
});
