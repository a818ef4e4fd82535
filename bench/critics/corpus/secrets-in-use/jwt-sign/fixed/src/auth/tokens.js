const jwt = require('jsonwebtoken');

const secret = process.env.JWT_SECRET;
if (!secret) throw new Error('JWT_SECRET is not set');

exports.issue = (user) => jwt.sign({ sub: user.id, role: user.role }, secret, { expiresIn: '1h' });
