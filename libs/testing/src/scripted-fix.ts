// What the scripted model writes in LLM tests on the sample repository (examples/sample-repo.mjs):
// a red test for the invoice-sequence finding in src/tax.js, and the guard that turns it green.

/** Where the scripted test-writer puts its test. */
export const RED_TEST_PATH = 'test/invoice-sequence.test.mjs';

/** A node:test file that fails until invoiceNumber rejects a sequence below 1. */
export const RED_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { invoiceNumber } from '../src/tax.js';",
  '',
  "test('invoiceNumber rejects a sequence below 1', () => {",
  '  assert.throws(() => invoiceNumber(2026, -1), RangeError);',
  '});',
  '',
].join('\n');

/** The line of src/tax.js the scripted implementer anchors its edit on. */
export const INVOICE_SIGNATURE = 'export function invoiceNumber(year, sequence) {\n';

/** The line the scripted implementer inserts after INVOICE_SIGNATURE: the fix. */
export const SEQUENCE_GUARD =
  '  if (!Number.isInteger(sequence) || sequence < 1) throw new RangeError(`invalid invoice sequence: ${sequence}`);\n';
