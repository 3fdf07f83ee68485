/**
 * The shared poller (implementation pending: core-server work). One status read per job per interval,
 * however many waits watch it.
 */
export interface Poller {
  close(): void;
}
