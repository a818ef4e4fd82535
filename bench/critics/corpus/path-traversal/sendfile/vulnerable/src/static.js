const express = require('express');
const app = express();

app.get('/docs', (req, res) => {
  res.sendFile(`/srv/docs/${req.query.page}`); // VULN: path-traversal
});

app.listen(8080);
