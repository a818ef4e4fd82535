import type { Server } from 'socket.io';

export function registerCalculator(io: Server) {
  io.on('connection', (socket) => {
    socket.on('calc', (expression: string, reply: (value: unknown) => void) => {
      reply(eval(expression)); // VULN: code-injection
    });
  });
}
