import ts from 'typescript';
import type { Val } from '../model.js';
import { join, taintFor } from '../values.js';
import type { CallView, FrameworkModel } from './types.js';

/** Receivers that are HTTP responses (Express/Node `res`, Fastify `reply`, Koa and Hono contexts, Hapi's toolkit `h`). */
export const RESPONSE_RECEIVER =
  /^(res|response|resp|reply|ctx|c|context|h|this\.res|ctx\.res|ctx\.response|event\.node\.res)$/;
/** Response methods that declare the content type (read by the interpreter before a body is written). */
export const CONTENT_TYPE_METHODS = ['type', 'contentType'];
export const HEADER_METHODS = ['setHeader', 'set', 'header'];

/**
 * A body written to the response as HTML: under a declared `text/html`, built with markup, or a
 * string sent by Express's `res.send` (which answers text/html). Fastify's `reply.send` and
 * `res.end` of plain text are not HTML; objects are JSON.
 */
function htmlBody(call: CallView): Val {
  const body = call.args[0] ?? null;
  if (body === null || body.k === 'obj' || call.objectLiteral(0) !== null) return null;
  const taint = taintFor(body, 'xss');
  if (taint === null || call.contentType === 'text') return null;
  if (call.contentType === 'html' || taint.html) return taint;
  return call.name === 'send' && call.root !== 'reply' ? taint : null;
}

/** `res.redirect(url)`, `res.redirect(301, url)`. */
function redirectTarget(call: CallView): Val {
  const first = call.argNodes[0];
  return call.args.length >= 2 && first !== undefined && ts.isNumericLiteral(first)
    ? (call.args[1] ?? null)
    : (call.args[0] ?? null);
}

/** `res.writeHead(302, { Location: url })`. */
function locationHeader(call: CallView): Val {
  const headers = call.args.find((a) => a !== null && a.k === 'obj');
  return headers !== undefined && headers !== null && headers.k === 'obj'
    ? (headers.fields.get('Location') ?? headers.fields.get('location') ?? null)
    : null;
}

/** `res.sendFile(path)` without a `root` option (with one, Express refuses paths leaving it). */
function servedFile(call: CallView): Val {
  const rooted = call.args
    .slice(1)
    .some((options) => options !== null && options.k === 'obj' && options.fields.has('root'));
  return rooted ? null : (call.args[0] ?? null);
}

/** `send(ctx, path, { root })` (koa-send), `send(req, path, { root })` (send): the root confines the path. */
function sentPath(call: CallView): Val {
  const options = call.args[2] ?? null;
  return options !== null && options.k === 'obj' && options.fields.has('root') ? null : (call.args[1] ?? null);
}

/** `res.render(view, locals)`: the view name, and a `layout` local (also when the whole body is spread into the locals). */
function renderedView(call: CallView): Val {
  const locals = call.args[1] ?? null;
  let out = call.args[0] ?? null;
  if (locals !== null && locals.k === 'obj') {
    out = join(out, locals.fields.get('layout') ?? null);
    if (locals.rest !== null && locals.rest.k === 'taint' && locals.rest.whole) out = join(out, locals.rest);
  } else if (locals !== null && locals.k === 'taint' && locals.whole) {
    out = join(out, locals);
  }
  return out;
}

/** `new Response(body, { headers: { 'Content-Type': 'text/html' } })` (Fetch API servers). */
function htmlResponse(call: CallView): Val {
  const init = call.objectLiteral(1);
  return init !== null && /text\/html/i.test(init.getText()) ? (call.args[0] ?? null) : null;
}

/**
 * HTTP responses of Node servers and the frameworks on them (Express, Koa, Fastify, Hapi, Hono,
 * h3): bodies written as HTML, redirects and Location headers, files served by path.
 */
export const httpResponseModel: FrameworkModel = {
  id: 'http-response',
  description:
    'res.send/write/end (HTML), res.redirect/location and Location headers, res.sendFile/download and koa-send/send without root, res.render view names, new Response(…, text/html).',
  sinks: [
    { kind: 'xss', call: { method: ['send', 'write', 'end'], root: RESPONSE_RECEIVER }, value: htmlBody },
    { kind: 'redirect', call: { method: 'redirect' }, value: redirectTarget },
    { kind: 'redirect', call: { method: 'location', root: RESPONSE_RECEIVER }, args: [0] },
    {
      kind: 'redirect',
      call: { method: ['setHeader', 'set', 'header', 'append', 'setHeaders'] },
      args: [1],
      when: (call) => /^location$/i.test(call.literal(0) ?? ''),
    },
    { kind: 'redirect', call: { method: 'writeHead' }, value: locationHeader },
    {
      kind: 'path',
      call: { method: ['sendFile', 'download', 'sendfile'], root: RESPONSE_RECEIVER },
      value: servedFile,
    },
    { kind: 'path', call: { module: ['koa-send', 'send'], member: '' }, value: sentPath },
    { kind: 'path', call: { method: 'render', root: RESPONSE_RECEIVER }, value: renderedView },
    { kind: 'xss', call: { global: 'Response' }, construct: true, value: htmlResponse, label: 'new Response' },
  ],
};
