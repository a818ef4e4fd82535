const express = require('express');
const app = express();

app.get('/docs', (req, res) => {
  res.sendFile(String(req.query.page), { root: '/srv/docs' });
});

app.listen(8080);
