const { execFileSync } = require('child_process');

/** Clones a repository into a directory. */
exports.clone = function clone(url, dir) {
  return execFileSync('git', ['clone', '--depth', '1', '--', url, dir]);
};
