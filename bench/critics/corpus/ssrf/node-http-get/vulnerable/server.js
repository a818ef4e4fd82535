const http = require('http');
const https = require('https');

http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const target = url.searchParams.get('image');
  https.get(target, (upstream) => upstream.pipe(res)); // VULN: ssrf
}).listen(8080);
