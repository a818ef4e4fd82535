// Pure rules of the refinement loop: no clock, no ids from thin air, no I/O.
export { fingerprintOf, locationHashOf, isSameIssue, FUZZY_LINE_WINDOW, type FingerprintInput } from './identity/fingerprint.js';
export { deterministicId } from './identity/ids.js';
export { DEFAULT_K, nextPhase, phaseIncludes } from './phases/phases.js';
export { compareFindings, rankFindings } from './synthesis/ranking.js';
export { synthesizeLetter, type CriticReport, type SynthesisInput } from './synthesis/synthesize.js';
export { renderLetterMarkdown } from './letter/markdown.js';
