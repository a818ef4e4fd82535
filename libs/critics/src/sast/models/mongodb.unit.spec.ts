import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('mongodb model', [
  {
    name: 'a $where string built from a route parameter, also inside an aggregation',
    vulnerable: {
      'src/reviews.ts': `import express from 'express';
import { db } from './db';
const app = express();
app.get('/reviews/:id', async (req, res) => {
  const id = req.params.id;
  res.json(await db.reviews.find({ $where: 'this.product == ' + id })); // SINK code
});
app.get('/orders/:id', async (req, res) => {
  res.json(await db.orders.aggregate([{ $match: { $where: \`this.orderId === '\${req.params.id}'\` } }])); // SINK code
});
`,
      'src/db.ts': `export const db: any = {};\n`,
    },
    safe: {
      'src/reviews.ts': `import express from 'express';
import { db } from './db';
const app = express();
app.get('/reviews/:id', async (req, res) => {
  res.json(await db.reviews.find({ product: Number(req.params.id) }));
});
app.get('/orders/:id', async (req, res) => {
  res.json(await db.orders.aggregate([{ $match: { orderId: String(req.params.id) } }]));
});
`,
      'src/db.ts': `export const db: any = {};\n`,
    },
  },
  {
    name: 'mapReduce functions written as strings from input, and mongoose $where',
    vulnerable: {
      'src/stats.js': `module.exports = async function stats(req, res, Model) {
  await Model.collection.mapReduce(req.body.map, 'function (k, v) { return Array.sum(v); }', { out: { inline: 1 } }); // SINK code
  res.json(await Model.find().$where(req.body.filter)); // SINK code
};
`,
    },
    safe: {
      'src/stats.js': `module.exports = async function stats(req, res, Model) {
  await Model.collection.mapReduce(function () { emit(this.tag, 1); }, function (k, v) { return Array.sum(v); }, { out: { inline: 1 } });
  res.json(await Model.find({ tag: String(req.body.tag) }));
};
`,
    },
  },
  {
    name: 'an operator object as a filter value (input-validation checker)',
    vulnerable: {
      'src/login.ts': `import express from 'express';
import { Users, db } from './users';
const app = express();
app.post('/login', async (req, res) => {
  res.json(await Users.findOne({ name: req.body.name, password: req.body.password })); // SINK nosql
});
app.patch('/reviews', async (req, res) => {
  res.json(await db.reviews.update({ _id: req.body.id }, { $set: { message: String(req.body.message) } }, { multi: true })); // SINK nosql
});
`,
      'src/users.ts': `export const Users: any = {};\nexport const db: any = {};\n`,
    },
    safe: {
      'src/login.ts': `import express from 'express';
import { Users } from './users';
const app = express();
app.post('/login', async (req, res) => {
  res.json(await Users.findOne({ name: String(req.body.name), password: String(req.body.password) }));
});
app.patch('/users', async (req, res) => {
  // Sequelize: values first, the filter in options.where; a record's update(values) selects nothing.
  res.json(await Users.update({ nickname: req.body.nickname }, { where: { id: req.user.id } }));
  const user = await Users.findByPk(req.user.id);
  res.json(await user.update({ nickname: req.body.nickname }));
});
`,
      'src/users.ts': `export const Users: any = {};\n`,
    },
  },
]);
