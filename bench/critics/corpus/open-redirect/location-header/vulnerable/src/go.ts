import http from 'node:http';

http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const target = url.searchParams.get('to') ?? '/';
  res.writeHead(302, { Location: target }); // VULN: open-redirect
  res.end();
}).listen(8000);
