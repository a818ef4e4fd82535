class NulCharacterError extends Error {}

// jsonb cannot hold U+0000 in a string or key; refusing it here gives a validation error instead of
// a failed INSERT halfway through a batch.
function refuseNul(key: string, value: unknown): unknown {
  if (key.includes('\u0000') || (typeof value === 'string' && value.includes('\u0000'))) throw new NulCharacterError();
  return value;
}

/**
 * The JSON value PostgreSQL will store for `value` (what JSON.stringify keeps: undefined
 * properties dropped, dates as strings), or undefined when the value has no jsonb form (a cycle,
 * a BigInt, undefined, a NUL character).
 */
export function toJsonValue(value: unknown): { readonly json: string; readonly value: unknown } | undefined {
  // JSON.stringify's type says string, but it returns undefined for undefined, functions and symbols.
  let json: string | undefined;
  try {
    json = JSON.stringify(value, refuseNul);
  } catch {
    // The caller reports the value as invalid, which is the whole answer.
    return undefined;
  }
  if (json === undefined) return undefined;
  return { json, value: JSON.parse(json) as unknown };
}

/**
 * jsonb equality for values that went through JSON: object key order does not matter, array
 * order does. Used to tell an idempotent retry from an event id reused for different content.
 */
export function jsonEquals(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => jsonEquals(item, right[index]));
  }
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  const keys = Object.keys(leftRecord);
  if (keys.length !== Object.keys(rightRecord).length) return false;
  return keys.every((key) => Object.hasOwn(rightRecord, key) && jsonEquals(leftRecord[key], rightRecord[key]));
}
