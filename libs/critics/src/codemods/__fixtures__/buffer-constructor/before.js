// new Buffer(…) → Buffer.alloc / Buffer.from where the argument's kind is known.
const zeros = new Buffer(16);
const text = new Buffer('héllo', 'utf8');
const bytes = new Buffer([1, 2, 3]);
const copy = new Buffer(bytes);
const shared = new Buffer(new ArrayBuffer(8));
const hex = new Buffer('ff00', 'hex').toString('base64');

function fromUnknown(input) {
  // Stays: a parameter of unknown type may be a number or not.
  return new Buffer(input);
}

function decode(input) {
  // With an encoding, a number input throws either way.
  return new Buffer(input, 'base64');
}

module.exports = { zeros, text, bytes, copy, shared, hex, fromUnknown, decode };
