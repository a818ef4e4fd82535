import http from 'node:http';

const ORIGIN = 'https://shop.example';

http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const target = new URL(url.searchParams.get('to') ?? '/', ORIGIN);
  if (target.origin !== ORIGIN) {
    res.writeHead(400).end();
    return;
  }
  res.writeHead(302, { Location: target.pathname + target.search });
  res.end();
}).listen(8000);
