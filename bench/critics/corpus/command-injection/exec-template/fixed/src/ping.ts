import express from 'express';
import { execFile } from 'node:child_process';

const app = express();

app.get('/ping', (req, res) => {
  const host = String(req.query.host);
  execFile('ping', ['-c', '1', host], (error, stdout) => {
    res.type('text/plain').send(error ? 'unreachable' : stdout);
  });
});
