// Typed access to the journal's queries over the bus (the journal is the only database reader),
// and the one way a person's decision on a loop (resume, stop) is recorded.
export { JournalClient, type JournalEntry } from './journal-client.js';
export { JournalClientModule } from './journal-client.module.js';
export {
  resumeLoop,
  stopLoop,
  LOOP_CONTROL_CODES,
  type LoopControlPorts,
  type ResumeDecision,
} from './loop-control.js';
// For handler specs: the publisher and the journal's queries as in-memory ports (see its doc).
export { InMemoryJournal, inMemoryPorts, journaledEvent } from './testing/in-memory-journal.js';
export {
  coreCatalogue,
  deliveryTo,
  runStartEvents,
  startRoundOne,
  thrownBy,
  type RunStartOptions,
} from './testing/handler-specs.js';
