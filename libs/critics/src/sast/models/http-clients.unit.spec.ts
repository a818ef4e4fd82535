import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('http-clients model (server-side request forgery)', [
  {
    name: 'fetch of a URL from the query string',
    vulnerable: {
      'src/proxy.ts': `import express from 'express';
const app = express();
app.get('/preview', async (req, res) => {
  const page = await fetch(String(req.query.url)); // SINK ssrf
  res.send(await page.text());
});
`,
    },
    safe: {
      'src/proxy.ts': `import express from 'express';
const app = express();
const ALLOWED_HOSTS = new Set(['images.example.com']);
app.get('/preview', async (req, res) => {
  const url = new URL(String(req.query.url));
  if (url.protocol !== 'https:' || !ALLOWED_HOSTS.has(url.hostname)) return res.status(400).end();
  const page = await fetch(url);
  res.send(await page.text());
});
`,
    },
  },
  {
    name: 'axios, got, needle, request and superagent with a body field as the URL',
    vulnerable: {
      'src/hooks.js': `const axios = require('axios');
const got = require('got');
const needle = require('needle');
const request = require('request');
const superagent = require('superagent');
exports.register = (req, res) => {
  const target = req.body.callback;
  axios.post(target, { ok: true }); // SINK ssrf
  got(target); // SINK ssrf
  needle('get', target); // SINK ssrf
  request({ url: target }, () => res.end()); // SINK ssrf
  superagent.get(target).end(); // SINK ssrf
};
`,
    },
    safe: {
      'src/hooks.js': `const axios = require('axios');
const got = require('got');
exports.register = (req, res) => {
  const id = encodeURIComponent(req.body.id);
  axios.post('https://hooks.example.com/notify/' + id, { ok: true });
  got(\`https://api.example.com/users/\${id}\`);
  res.end();
};
`,
    },
  },
  {
    name: 'an axios instance and http.request with a host option',
    vulnerable: {
      'src/client.ts': `import axios from 'axios';
import https from 'node:https';
const api = axios.create({ timeout: 1000 });
export async function handler(req: Request) {
  const host = new URL(req.url).searchParams.get('host');
  await api.get(\`https://\${host}/status\`); // SINK ssrf
  https.request({ hostname: host, path: '/' }).end(); // SINK ssrf
}
`,
    },
    safe: {
      'src/client.ts': `import axios from 'axios';
import https from 'node:https';
const api = axios.create({ timeout: 1000 });
export async function handler(req: Request) {
  const name = new URL(req.url).searchParams.get('name');
  await api.get('https://status.example.com/', { params: { name } });
  https.request({ hostname: 'status.example.com', path: '/?q=' + encodeURIComponent(String(name)) }).end();
}
`,
    },
  },
  {
    name: 'fetch behind a weak allowlist (the allowed host searched for as a substring)',
    vulnerable: {
      'src/fetcher.ts': `import express from 'express';
const app = express();
const allowed = ['https://cdn.example.com'];
function isAllowedUrl(url: string) {
  return allowed.some((prefix) => url.includes(prefix));
}
app.post('/import', async (req, res) => {
  const url: string = req.body.url;
  if (!isAllowedUrl(url)) return res.sendStatus(400);
  res.json(await (await fetch(url)).json()); // SINK ssrf
});
`,
    },
    safe: {
      'src/fetcher.ts': `import express from 'express';
const app = express();
const allowed = ['cdn.example.com'];
function isAllowedUrl(url: string) {
  return allowed.includes(new URL(url).hostname);
}
app.post('/import', async (req, res) => {
  const url: string = req.body.url;
  if (!isAllowedUrl(url)) return res.sendStatus(400);
  res.json(await (await fetch(url)).json());
});
`,
    },
  },
  {
    name: 'a request URL but not a configured one (environment, command line)',
    vulnerable: {
      'src/health.ts': `export async function check(req: Request) {
  await fetch(new URL(req.url).searchParams.get('u') ?? ''); // SINK ssrf
  await fetch(process.env.UPSTREAM_URL ?? '');
  await fetch(process.argv[2] ?? '');
}
`,
    },
  },
]);
