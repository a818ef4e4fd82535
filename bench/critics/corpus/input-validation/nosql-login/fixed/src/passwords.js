const bcrypt = require('bcrypt');

exports.verify = (password, hash) => bcrypt.compare(password, hash);
