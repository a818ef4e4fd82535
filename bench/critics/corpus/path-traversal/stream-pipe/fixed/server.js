const http = require('http');
const fs = require('fs');
const path = require('path');

http.createServer(function (req, res) {
  const file = new URL(req.url, 'http://localhost').searchParams.get('file') || 'index.html';
  const safe = path.normalize(file).replace(/^(\.\.(\/|\\|$))+/, '');
  fs.createReadStream(path.join(__dirname, 'public', safe)).pipe(res);
}).listen(8080);
