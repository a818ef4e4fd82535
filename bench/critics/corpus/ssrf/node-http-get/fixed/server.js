const http = require('http');
const https = require('https');

http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const name = url.searchParams.get('image') || 'default.png';
  https.get({ hostname: 'cdn.example.com', path: '/images/' + encodeURIComponent(name) }, (upstream) => upstream.pipe(res));
}).listen(8080);
