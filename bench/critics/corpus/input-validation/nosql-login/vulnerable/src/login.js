const express = require('express');
const { users } = require('./db');

const router = express.Router();

router.post('/login', async (req, res) => {
  const user = await users.findOne({ email: req.body.email, password: req.body.password }); // VULN: nosql-injection
  if (!user) return res.status(401).end();
  res.json({ id: user._id });
});

module.exports = router;
