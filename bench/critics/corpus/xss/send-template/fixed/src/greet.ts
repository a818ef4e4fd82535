import express from 'express';

const app = express();

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

app.get('/hello', (req, res) => {
  res.send(`<h1>Hello ${escapeHtml(String(req.query.name))}</h1>`);
});
