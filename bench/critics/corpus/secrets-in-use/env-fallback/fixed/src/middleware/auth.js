const { expressjwt } = require('express-jwt');

if (!process.env.JWT_SECRET) throw new Error('JWT_SECRET is not set');

module.exports = expressjwt({
  secret: process.env.JWT_SECRET,
  algorithms: ['HS256'],
});
