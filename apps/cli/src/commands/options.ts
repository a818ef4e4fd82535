import type { Command } from 'commander';
import { escapeControlChars } from '@rloop/domain';
import type { BusFlags } from '../bus/connect.js';

/** The global flags every networked command understands (see `rloop --help`). */
export function busFlagsOf(command: Command): BusFlags {
  const opts = command.optsWithGlobals<{ natsUrl?: string; namespace?: string }>();
  return {
    ...(opts.natsUrl === undefined ? {} : { natsUrl: opts.natsUrl }),
    ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
  };
}

// What the CLI prints comes from the journal, critics, repositories and models: control characters
// (escape sequences, carriage returns, bidi overrides) are shown escaped, never sent to the terminal.

/** Writes a line to stdout, control characters escaped. */
export function out(line: string): void {
  process.stdout.write(`${escapeControlChars(line)}\n`);
}

/** Writes a line to stderr (progress and notes, so stdout stays machine-readable), control characters escaped. */
export function note(line: string): void {
  process.stderr.write(`${escapeControlChars(line)}\n`);
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive whole number, got "${value}"`);
  return n;
}

export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new Error(`expected a port (0-65535), got "${value}"`);
  return n;
}
