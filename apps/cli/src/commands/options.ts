import type { Command } from 'commander';
import type { BusFlags } from '../bus/connect.js';

/** The global flags every networked command understands (see `rloop --help`). */
export function busFlagsOf(command: Command): BusFlags {
  const opts = command.optsWithGlobals<{ natsUrl?: string; namespace?: string }>();
  return { ...(opts.natsUrl === undefined ? {} : { natsUrl: opts.natsUrl }), ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }) };
}

/** Writes a line to stdout. */
export function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Writes a line to stderr (progress and notes, so stdout stays machine-readable). */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
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
