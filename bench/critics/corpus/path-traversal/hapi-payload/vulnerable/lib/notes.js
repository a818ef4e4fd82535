'use strict';
const Fs = require('fs/promises');
const Path = require('path');

exports.plugin = {
  name: 'notes',
  register(server) {
    server.route({
      method: 'POST',
      path: '/notes/read',
      handler: async (request) => {
        const file = Path.join(__dirname, 'notes', request.payload.name);
        return Fs.readFile(file, 'utf8'); // VULN: path-traversal
      },
    });
  },
};
