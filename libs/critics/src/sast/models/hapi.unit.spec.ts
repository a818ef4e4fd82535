import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('hapi model', [
  {
    name: 'request.payload and request.state reaching SQL from a server.route handler',
    vulnerable: {
      'lib/routes.js': `module.exports = (server, db) => {
  server.route({
    method: 'POST',
    path: '/notes',
    handler: (request) => db.query("INSERT INTO notes VALUES ('" + request.payload.text + "', '" + request.state.session + "')"), // SINK sql
  });
};
`,
    },
    safe: {
      'lib/routes.js': `module.exports = (server, db) => {
  server.route({
    method: 'POST',
    path: '/notes',
    handler: (request) => db.query('INSERT INTO notes VALUES ($1, $2)', [request.payload.text, request.state.session]),
  });
};
`,
    },
  },
]);
