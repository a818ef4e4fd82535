// url.parse('literal').field → new URL('literal').field where both parsers give the same value.
const url = require('url');

const host = new URL('https://Example.com:8080/a?b=1').hostname;
const port = new URL('https://example.com:8080/a').port;
// Stays: url.parse gives "?" where new URL gives "".
const search = url.parse('http://example.com/?').search;

function hostOf(input) {
  // Stays: an input not known here.
  return url.parse(input).hostname;
}

module.exports = { host, port, search, hostOf };
