import type { FrameworkModel } from './types.js';

/** Lifecycle events carry no client data (their callbacks get sockets, errors, close codes). */
const LIFECYCLE =
  /^(connection|connect|open|close|disconnect|disconnecting|error|end|ping|pong|upgrade|listening|headers|unexpected-response|request|drain|finish|timeout|connect_error|reconnect\w*)$/;

/**
 * WebSocket servers and clients (ws, socket.io, SockJS): every parameter of a handler for a
 * client event is data the peer chose.
 */
export const websocketModel: FrameworkModel = {
  id: 'websocket',
  description:
    "ws `socket.on('message', data => …)`, socket.io `socket.on('<event>', (payload, ack) => …)`: message payloads.",
  entryHint: /\.on\s*\(\s*['"`]/,
  callbacks: [
    {
      yields: 'message',
      method: ['on', 'once', 'addListener', 'prependListener'],
      receiver: /(socket|ws|client|conn|connection|channel|peer|io)$/i,
      notEvent: LIFECYCLE,
    },
  ],
};
