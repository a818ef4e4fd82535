import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('graphql model', [
  {
    name: 'resolver arguments into SQL',
    vulnerable: {
      'src/resolvers.js': `const { db } = require('./db');
module.exports.resolvers = {
  Query: {
    user: (_parent, args) => db.query("SELECT * FROM users WHERE login = '" + args.login + "'"), // SINK sql
  },
};
`,
      'src/db.js': `const { Pool } = require('pg');\nexports.db = new Pool();\n`,
    },
    safe: {
      'src/resolvers.js': `const { db } = require('./db');
module.exports.resolvers = {
  Query: {
    user: (_parent, args) => db.query('SELECT * FROM users WHERE login = $1', [args.login]),
  },
};
`,
      'src/db.js': `const { Pool } = require('pg');\nexports.db = new Pool();\n`,
    },
  },
]);
