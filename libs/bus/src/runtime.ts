import { type DynamicModule, Module } from '@nestjs/common';

/** The time a handler stamps on what it publishes; injected so a handler spec can fix it. */
export interface Clock {
  now(): Date;
}

/** Who publishes: the service's name and the producer written into every envelope it stamps. */
export interface ServiceIdentity {
  readonly service: string;
  /** `<service>@<pid>`: which process decided, for people reading the journal. */
  readonly producer: string;
}

/** Injection token of the Clock port: `@Inject(CLOCK) clock: Clock`. */
export const CLOCK = Symbol.for('rloop.runtime.Clock');
/** Injection token of the ServiceIdentity: `@Inject(SERVICE_IDENTITY) identity: ServiceIdentity`. */
export const SERVICE_IDENTITY = Symbol.for('rloop.runtime.ServiceIdentity');

/** The wall clock. */
export const SYSTEM_CLOCK: Clock = { now: () => new Date() };

/** This process's identity as `service` (the one place a service reads its pid for envelopes). */
export function processIdentity(service: string): ServiceIdentity {
  return { service, producer: `${service}@${process.pid}` };
}

/** Provides CLOCK and SERVICE_IDENTITY to every module (global); startService imports it for you. */
@Module({})
export class RuntimeModule {
  static forRoot(identity: ServiceIdentity, clock: Clock = SYSTEM_CLOCK): DynamicModule {
    return {
      module: RuntimeModule,
      global: true,
      providers: [
        { provide: CLOCK, useValue: clock },
        { provide: SERVICE_IDENTITY, useValue: identity },
      ],
      exports: [CLOCK, SERVICE_IDENTITY],
    };
  }
}
