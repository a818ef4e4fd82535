const { expressjwt } = require('express-jwt');

module.exports = expressjwt({
  secret: process.env.JWT_SECRET || 'development-secret', // VULN: secret/hardcoded-key-fallback
  algorithms: ['HS256'],
});
