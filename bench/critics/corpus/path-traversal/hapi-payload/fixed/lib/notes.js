'use strict';
const Fs = require('fs/promises');
const Path = require('path');

const NOTES = Path.join(__dirname, 'notes');

exports.plugin = {
  name: 'notes',
  register(server) {
    server.route({
      method: 'POST',
      path: '/notes/read',
      handler: async (request, h) => {
        const file = Path.resolve(NOTES, request.payload.name);
        if (!file.startsWith(NOTES + Path.sep)) return h.response('not found').code(404);
        return Fs.readFile(file, 'utf8');
      },
    });
  },
};
