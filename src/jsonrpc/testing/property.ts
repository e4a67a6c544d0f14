/**
 * Running fast-check properties the same way everywhere: a bounded number of runs by default (CI stays fast),
 * `ACPKIT_PROPERTY_RUNS=100000` for a long run, and `ACPKIT_PROPERTY_SEED` (+ `ACPKIT_PROPERTY_PATH`) to replay a
 * failure. A failing property throws fast-check's report: the seed, the path and the shrunk counterexample.
 */
import fc from "fast-check";

/** The number of runs: `ACPKIT_PROPERTY_RUNS` when set, else `defaultRuns`. */
export function propertyRuns(defaultRuns: number): number {
  const fromEnv = Number(process.env.ACPKIT_PROPERTY_RUNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : defaultRuns;
}

function parameters<T>(defaultRuns: number): fc.Parameters<T> {
  const seed = Number(process.env.ACPKIT_PROPERTY_SEED);
  return {
    numRuns: propertyRuns(defaultRuns),
    ...(Number.isInteger(seed) ? { seed } : {}),
    ...(process.env.ACPKIT_PROPERTY_PATH ? { path: process.env.ACPKIT_PROPERTY_PATH } : {}),
    // The report names the seed and the shrunk counterexample; verbose adds the failing runs before shrinking.
    verbose: 1,
    includeErrorInReport: true,
  };
}

/** Checks a synchronous property. */
export function checkProperty<T>(property: fc.IProperty<T>, defaultRuns: number): void {
  fc.assert(property, parameters<T>(defaultRuns));
}

/** Checks an asynchronous property. */
export async function checkAsyncProperty<T>(property: fc.IAsyncProperty<T>, defaultRuns: number): Promise<void> {
  await fc.assert(property, parameters<T>(defaultRuns));
}
