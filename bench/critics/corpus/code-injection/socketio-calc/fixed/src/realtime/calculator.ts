import type { Server } from 'socket.io';

export function registerCalculator(io: Server) {
  io.on('connection', (socket) => {
    socket.on('calc', (input: { a: unknown; b: unknown }, reply: (value: unknown) => void) => {
      reply(Number(input.a) + Number(input.b));
    });
  });
}
