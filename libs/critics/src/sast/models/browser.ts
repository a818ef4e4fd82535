import type { FrameworkModel } from './types.js';

/**
 * The browser: the page URL, referrer, cookies and window name are sources; window and worker
 * messages are sources unless the handler checks the sender's origin; HTML and navigation sinks.
 */
export const browserModel: FrameworkModel = {
  id: 'browser',
  description:
    'location.*, document.URL/referrer/cookie, window.name, postMessage events (until event.origin is checked); innerHTML/outerHTML/srcdoc, document.write, insertAdjacentHTML, location assignment/assign/replace, window.open.',
  entryHint: /\blocation\b|document\.|window\.|addEventListener\s*\(\s*['"]message|\bonmessage\b/,
  globalObjects: { location: 'location', document: 'document', window: 'window', globalThis: 'window', self: 'window' },
  globals: [
    { object: 'window', property: 'location', yields: { global: 'location' } },
    { object: 'window', property: 'document', yields: { global: 'document' } },
    { object: 'window', property: 'name', yields: { origin: 'dom' } },
    { object: 'document', property: 'location', yields: { global: 'location' } },
    {
      object: 'document',
      property: ['URL', 'documentURI', 'referrer', 'baseURI', 'cookie'],
      yields: { origin: 'dom' },
    },
    { object: 'location', property: ['href', 'search', 'hash', 'pathname', 'toString()'], yields: { origin: 'dom' } },
  ],
  requests: [{ flavor: 'message-event', origin: 'message', fields: ['data'], scalarFields: [], trustedBy: 'origin' }],
  parameters: { types: [{ name: /^MessageEvent$/, flavor: 'message-event' }] },
  callbacks: [
    { yields: 'message-event', method: 'addEventListener', event: /^message$/ },
    { yields: 'message-event', assignedProperty: 'onmessage' },
  ],
  sinks: [
    { kind: 'xss', call: { method: ['write', 'writeln'], on: ['document'] }, args: [0] },
    { kind: 'xss', call: { method: 'insertAdjacentHTML' }, args: [1] },
    {
      kind: 'redirect',
      call: { method: ['assign', 'replace'], on: ['location'], receiver: /(^|\.)location$/ },
      args: [0],
    },
    { kind: 'redirect', call: { method: 'open', on: ['window'] }, args: [0] },
  ],
  assignmentSinks: [
    { kind: 'xss', property: ['innerHTML', 'outerHTML', 'srcdoc'] },
    {
      kind: 'redirect',
      property: ['href', 'location'],
      on: ['location', 'window', 'document'],
      receiver: /(^|\.)location$/,
    },
  ],
};
