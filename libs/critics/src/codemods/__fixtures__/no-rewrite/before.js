// Deprecations the critics report that no rewrite keeps equivalent: left alone, each with why.
const fs = require('fs');
const util = require('util');
const crypto = require('crypto');

fs.exists('/tmp', (found) => util.log(String(found)));
const cipher = crypto.createCipher('aes192', 'a password');
const encoded = unescape(escape('é'));

module.exports = { cipher, encoded };
