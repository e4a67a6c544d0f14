/**
 * Marks a promise this library hands out as handled, and returns it unchanged: a caller that awaits it still sees
 * its rejection, and a caller that does not (a request fired and forgotten when the connection then closes) is not
 * crashed by an unhandled rejection. The official SDK (1.9.0 and 2.4.0) marks its request promises the same way, so
 * programs written for it rely on this.
 */
export function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(ignore);
  return promise;
}

/** A rejected promise, marked as handled (see `handled`). */
export function rejectedHandled<T = never>(error: unknown): Promise<T> {
  return handled(Promise.reject(error as Error));
}

function ignore(): void {}
