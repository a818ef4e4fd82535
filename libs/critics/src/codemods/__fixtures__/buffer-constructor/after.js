// new Buffer(…) → Buffer.alloc / Buffer.from where the argument's kind is known.
const zeros = Buffer.alloc(16);
const text = Buffer.from('héllo', 'utf8');
const bytes = Buffer.from([1, 2, 3]);
const copy = Buffer.from(bytes);
const shared = Buffer.from(new ArrayBuffer(8));
const hex = Buffer.from('ff00', 'hex').toString('base64');

function fromUnknown(input) {
  // Stays: a parameter of unknown type may be a number or not.
  return new Buffer(input);
}

function decode(input) {
  // With an encoding, a number input throws either way.
  return Buffer.from(input, 'base64');
}

module.exports = { zeros, text, bytes, copy, shared, hex, fromUnknown, decode };
