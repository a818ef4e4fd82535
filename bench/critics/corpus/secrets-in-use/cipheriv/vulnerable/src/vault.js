const crypto = require('crypto');

const KEY = Buffer.from('0123456789abcdef0123456789abcdef', 'utf8');

exports.encrypt = function encrypt(plain) {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', KEY, iv); // VULN: secret/hardcoded-key
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
};
