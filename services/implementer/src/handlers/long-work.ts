/**
 * The consumer settings of the implementer's long handlers (a baseline's test run, a fix, a
 * handoff's push). A replica holds only as many messages as it runs: with the bus's default
 * buffer, the first replica to pull took every pending plan (measured in the chaos test: one of
 * two implementers did 40 of 50 test runs) while the other idled, and a kill -9 of it cost a
 * delivery attempt of each message it held, run or not. The rest stay on the server for the next
 * replica with room. The ack wait bounds only the recovery after a crash (heartbeats keep it while
 * a handler works).
 */
export const LONG_WORK = { ackWaitMs: 120_000, concurrency: 8, maxBuffered: 8 } as const;
