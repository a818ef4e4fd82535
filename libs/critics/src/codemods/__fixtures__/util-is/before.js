// util.isX(value) → the expression Node's own implementation is.
const util = require('util');

function kind(value, other) {
  if (util.isArray(value)) return 'array';
  if (util.isString(value) && !util.isNullOrUndefined(other)) return 'string';
  if (util.isDate(value) || util.isRegExp(value)) return 'object';
  if (util.isError(value)) return 'error';
  // Stays: its equivalent would read value.inner twice.
  if (util.isNullOrUndefined(value.inner)) return 'empty';
  return util.isBoolean(util.isNumber(value)) ? 'boolean' : 'other';
}

module.exports = { kind };
