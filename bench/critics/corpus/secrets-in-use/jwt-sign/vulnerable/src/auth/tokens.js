const jwt = require('jsonwebtoken');

exports.issue = (user) => jwt.sign({ sub: user.id, role: user.role }, 'shhhhh', { expiresIn: '1h' }); // VULN: secret/hardcoded-key
