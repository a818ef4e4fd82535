var request = require('request');

module.exports = function proxy(req, res) {
  var upstream = req.query.upstream;
  request({ uri: upstream, method: 'GET' }).pipe(res); // VULN: ssrf
};
