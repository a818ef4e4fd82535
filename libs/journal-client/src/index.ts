// Typed access to the journal's queries over the bus (the journal is the only database reader).
export { JournalClient, type JournalEntry } from './journal-client.js';
export { JournalClientModule } from './journal-client.module.js';
