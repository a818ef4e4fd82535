const http = require('http');
const fs = require('fs');
const url = require('url');

http.createServer(function (req, res) {
  const query = url.parse(req.url, true).query;
  fs.createReadStream(__dirname + '/public/' + query.file).pipe(res); // VULN: path-traversal
}).listen(8080);
