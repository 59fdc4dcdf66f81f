/**
 * Small helpers to make waits and promises give up when an `AbortSignal` fires.
 */

/** The error a wait rejects with when its signal fires: the signal's reason when it is an Error. */
function abortError(signal: AbortSignal): Error {
  const { reason } = signal;
  if (reason instanceof Error) return reason;
  const error = new Error(typeof reason === "string" ? reason : "the operation was aborted");
  error.name = "AbortError";
  return error;
}

/** Waits `ms` milliseconds; rejects at once when `signal` fires. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Settles like `promise`, or rejects as soon as `signal` fires, whichever comes
 * first. Guards against a model or tool that ignores its signal.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
