const express = require('express');
const { users } = require('./db');
const { verify } = require('./passwords');

const router = express.Router();

router.post('/login', async (req, res) => {
  const email = String(req.body.email);
  const user = await users.findOne({ email });
  if (!user || !(await verify(String(req.body.password), user.passwordHash))) return res.status(401).end();
  res.json({ id: user._id });
});

module.exports = router;
