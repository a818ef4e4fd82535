const crypto = require('crypto');

const KEY = Buffer.from(process.env.VAULT_KEY_HEX || '', 'hex');

exports.encrypt = function encrypt(plain) {
  if (KEY.length !== 32) throw new Error('VAULT_KEY_HEX must hold 32 bytes');
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', KEY, iv);
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
};
