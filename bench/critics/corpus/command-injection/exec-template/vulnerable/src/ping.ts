import express from 'express';
import { exec } from 'node:child_process';

const app = express();

app.get('/ping', (req, res) => {
  const host = req.query.host;
  exec(`ping -c 1 ${host}`, (error, stdout) => { // VULN: command-injection
    res.type('text/plain').send(error ? 'unreachable' : stdout);
  });
});
