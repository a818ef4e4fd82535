import type { CallView, FrameworkModel } from './types.js';

const VERBS = ['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options'];
const HTTP_METHOD = /^(get|post|put|patch|delete|head|options)$/i;

/** `needle('get', url)`, `superagent('GET', url)`: the URL follows a method name; `superagent(url)` alone is a GET. */
function urlAfterMethod(call: CallView) {
  const first = call.literal(0);
  return first !== null && HTTP_METHOD.test(first) ? (call.args[1] ?? null) : (call.args[0] ?? null);
}

/**
 * Outbound HTTP requests whose target comes from input: server-side request forgery. A URL built
 * on a fixed origin (`'https://api.example.com/users/' + id`) keeps the host and is not reported;
 * the environment and the command line are configuration, not attacker input (see rules.ts).
 */
export const httpClientsModel: FrameworkModel = {
  id: 'http-clients',
  description:
    'http(s).request/get, fetch (global, node-fetch, undici, cross-fetch), axios, got, ky, needle, request, superagent: the requested URL.',
  sinks: [
    {
      kind: 'ssrf',
      call: { module: ['http', 'https', 'http2'], member: ['request', 'get', 'connect'] },
      args: [{ index: 0, fields: ['host', 'hostname', 'href', 'url'] }],
    },
    { kind: 'ssrf', call: { global: 'fetch' }, args: [{ index: 0, fields: ['url'] }] },
    {
      kind: 'ssrf',
      call: {
        module: ['node-fetch', 'cross-fetch', 'isomorphic-fetch', 'undici', 'ky', 'ofetch'],
        member: ['', 'fetch', 'request', 'stream', 'ofetch', '$fetch', ...VERBS],
      },
      args: [{ index: 0, fields: ['url', 'origin'] }],
    },
    {
      kind: 'ssrf',
      call: { module: ['axios', 'got'], member: ['', 'request', 'stream', 'paginate', 'getUri', ...VERBS] },
      args: [{ index: 0, fields: ['url', 'baseURL', 'prefixUrl'] }],
    },
    // Instances keep the package's methods: `axios.create({ … }).get(url)`, `got.extend({ … })(url)`.
    {
      kind: 'ssrf',
      call: { module: ['axios', 'got'], member: ['', 'request', 'stream', ...VERBS], instance: true },
      args: [{ index: 0, fields: ['url', 'baseURL', 'prefixUrl'] }],
    },
    {
      kind: 'ssrf',
      call: { module: ['request', 'request-promise', 'request-promise-native'], member: ['', ...VERBS] },
      args: [{ index: 0, fields: ['url', 'uri', 'baseUrl'] }],
    },
    { kind: 'ssrf', call: { module: 'needle', member: VERBS }, args: [0] },
    { kind: 'ssrf', call: { module: 'needle', member: ['', 'request'] }, value: urlAfterMethod },
    { kind: 'ssrf', call: { module: 'superagent', member: [...VERBS, 'delete'] }, args: [0] },
    { kind: 'ssrf', call: { module: 'superagent', member: '' }, value: urlAfterMethod },
  ],
  instanceModules: ['axios', 'got'],
};
