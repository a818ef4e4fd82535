const jwt = require('jsonwebtoken');
const config = require('../config');

module.exports = (req, res) => {
  const token = jwt.sign({ sub: req.user.id }, config.auth.tokenSecret); // VULN: secret/hardcoded-key
  res.json({ token });
};
