// Pure rules of the refinement loop: no clock, no ids from thin air, no I/O.
export { fingerprintOf, locationHashOf, isSameIssue, FUZZY_LINE_WINDOW, type FingerprintInput } from './identity/fingerprint.js';
export { deterministicId } from './identity/ids.js';
