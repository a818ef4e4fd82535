/** Injection tokens of the journal service. */
export const JOURNAL_CONFIG = Symbol.for('rloop.journal.config');
export const EVENT_STORE = Symbol.for('rloop.journal.store');
