const { execSync } = require('child_process');

/** Clones a repository into a directory. */
exports.clone = function clone(url, dir) {
  return execSync('git clone --depth 1 ' + url + ' ' + dir); // VULN: command-injection
};
