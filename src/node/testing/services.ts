/**
 * Test helpers shared by the real-service harnesses (PostgreSQL, HAProxy): whether the tests must run here, and a
 * free TCP port on 127.0.0.1. For tests only (not shipped).
 */
import { createServer } from "node:net";

/**
 * Whether a missing service must fail the tests instead of skipping them: on Linux CI (`CI=true`, as GitHub Actions
 * and most CI services set it; `.ci/run` installs the packages) or when `ACPKIT_REQUIRE_SERVICES=1`.
 */
export function mustRunServices(): boolean {
  if (process.env.ACPKIT_REQUIRE_SERVICES === "1") return true;
  return process.platform === "linux" && (process.env.CI === "true" || process.env.CI === "1");
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("no port assigned"));
      });
    });
  });
}
