module.exports = {
  port: 3000,
  auth: { tokenSecret: 'P@ssw0rd!-token' }, // VULN: secret
};
