import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('stores model', [
  {
    name: 'a profile field written from a request and evaluated when read back in another file (second order)',
    vulnerable: {
      'src/update-profile.ts': `import type { Request, Response } from 'express';
import { UserModel } from './models/user';
export async function updateProfile(req: Request, res: Response) {
  const user = await UserModel.findByPk(req.session.userId);
  await user.update({ username: req.body.username });
  res.redirect('/profile');
}
`,
      'src/show-profile.ts': `import type { Request, Response } from 'express';
import { UserModel } from './models/user';
export async function showProfile(req: Request, res: Response) {
  const user = await UserModel.findByPk(req.session.userId);
  let name = user.username;
  if (name.startsWith('#{')) name = eval(name.slice(2, -1)); // SINK code
  res.json({ name });
}
`,
      'src/models/user.ts': `import { Model } from 'sequelize';\nexport class UserModel extends Model {}\n`,
    },
    safe: {
      'src/update-profile.ts': `import type { Request, Response } from 'express';
import { UserModel } from './models/user';
export async function updateProfile(req: Request, res: Response) {
  const user = await UserModel.findByPk(req.session.userId);
  await user.update({ username: req.body.username });
  res.redirect('/profile');
}
`,
      'src/show-profile.ts': `import type { Request, Response } from 'express';
import { UserModel } from './models/user';
export async function showProfile(req: Request, res: Response) {
  const user = await UserModel.findByPk(req.session.userId);
  res.json({ name: user.username });
}
`,
      'src/models/user.ts': `import { Model } from 'sequelize';\nexport class UserModel extends Model {}\n`,
    },
  },
  {
    name: 'a comment stored with create() and written as HTML in the same file',
    vulnerable: {
      'src/comments.js': `const { Comment } = require('./models');
module.exports = (app) => {
  app.post('/comments', async (req, res) => {
    await Comment.create({ body: req.body.text, author: req.user.id });
    res.sendStatus(201);
  });
  app.get('/comments', async (req, res) => {
    const rows = await Comment.findAll();
    res.send('<ul>' + rows.map((c) => '<li>' + c.body + '</li>').join('') + '</ul>'); // SINK xss
  });
};
`,
      'src/models.js': `exports.Comment = {};\n`,
    },
    safe: {
      'src/comments.js': `const escapeHtml = require('escape-html');
const { Comment } = require('./models');
module.exports = (app) => {
  app.post('/comments', async (req, res) => {
    await Comment.create({ body: escapeHtml(req.body.text), author: req.user.id });
    res.sendStatus(201);
  });
  app.get('/comments', async (req, res) => {
    const rows = await Comment.findAll();
    res.send('<ul>' + rows.map((c) => '<li>' + c.body + '</li>').join('') + '</ul>');
  });
};
`,
      'src/models.js': `exports.Comment = {};\n`,
    },
  },
  {
    name: 'the whole request body stored (mass assignment, input-validation checker)',
    vulnerable: {
      'src/users.ts': `import express from 'express';
import { User } from './user';
const app = express();
app.post('/users', async (req, res) => {
  res.json(await User.create(req.body)); // SINK mass-assignment
});
`,
      'src/user.ts': `export const User: any = {};\n`,
    },
    safe: {
      'src/users.ts': `import express from 'express';
import { User } from './user';
const app = express();
app.post('/users', async (req, res) => {
  res.json(await User.create({ name: String(req.body.name) }));
});
`,
      'src/user.ts': `export const User: any = {};\n`,
    },
  },
]);
