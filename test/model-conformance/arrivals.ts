/**
 * Waiting for a fake server's requests in the resume tests: the server tells
 * an {@link Arrivals} of each request as it arrives (from its `intercept`
 * hook), and the test waits until the requests so far meet a condition,
 * instead of sleeping.
 */

/** Resolves when the server has received requests matching a condition: told of each as it arrives. */
export class Arrivals<Request> {
  private readonly waiters = new Set<() => void>();
  constructor(private readonly requests: () => readonly Request[]) {}

  notify(): void {
    for (const wake of this.waiters) wake();
  }

  until(condition: (requests: readonly Request[]) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!condition(this.requests())) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
  }
}
