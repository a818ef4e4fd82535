module.exports = {
  port: 3000,
  auth: { tokenSecret: process.env.TOKEN_SECRET },
};
