// util.isX(value) → the expression Node's own implementation is.
const util = require('util');

function kind(value, other) {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string' && !(other === null || other === undefined)) return 'string';
  if (util.types.isDate(value) || util.types.isRegExp(value)) return 'object';
  if (Object.prototype.toString.call(value) === '[object Error]' || value instanceof Error) return 'error';
  // Stays: its equivalent would read value.inner twice.
  if (util.isNullOrUndefined(value.inner)) return 'empty';
  return typeof (typeof value === 'number') === 'boolean' ? 'boolean' : 'other';
}

module.exports = { kind };
