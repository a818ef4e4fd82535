const http = require('http');
const { parse } = require('querystring');

http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const comment = parse(body).comment;
    res.setHeader('Content-Type', 'text/html');
    res.write('<div class="comment">' + comment + '</div>'); // VULN: xss
    res.end();
  });
}).listen(3000);
