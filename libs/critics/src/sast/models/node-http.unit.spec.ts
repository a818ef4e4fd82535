import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('node:http model', [
  {
    name: "createServer's request URL and body chunks",
    vulnerable: {
      'server.js': `const http = require('http');
const fs = require('fs');
const { exec } = require('child_process');
http.createServer((req, res) => {
  fs.createReadStream('public' + req.url).pipe(res); // SINK path
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => exec('notify ' + body)); // SINK command
}).listen(3000);
`,
    },
    safe: {
      'server.js': `const http = require('http');
const fs = require('fs');
const path = require('path');
const { execFile } = require('child_process');
http.createServer((req, res) => {
  fs.createReadStream(path.join('public', path.basename(new URL(req.url, 'http://x').pathname))).pipe(res);
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => execFile('notify', [body]));
}).listen(3000);
`,
    },
  },
]);
