var request = require('request');

var UPSTREAM = 'status.internal.example.com';

module.exports = function proxy(req, res) {
  var upstream = new URL(req.query.upstream);
  if (upstream.hostname !== UPSTREAM) {
    res.statusCode = 400;
    return res.end('bad upstream');
  }
  request({ uri: upstream.href, method: 'GET' }).pipe(res);
};
