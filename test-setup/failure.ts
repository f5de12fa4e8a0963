/** The services the test setup finds or starts. */
export type TestService = "PostgreSQL" | "Chromium" | "MySQL/MariaDB" | "sandbox";

/**
 * A test service that could not be found or started: what went wrong and what the person running
 * the tests does about it, printed as one line; `details` (a server's log) is printed above it.
 */
export class ServiceStartError extends Error {
  constructor(
    readonly service: TestService,
    readonly reason: string,
    readonly remedy: string,
    readonly details?: string,
  ) {
    super(`${service} for the tests: ${reason.replace(/\.$/, "")}. ${remedy}`);
    this.name = "ServiceStartError";
  }
}

/** One line for any failure while starting the services; an unexpected error gets a generic remedy. */
export function failureLine(err: unknown): { line: string; details?: string } {
  if (err instanceof ServiceStartError) return { line: err.message, ...(err.details ? { details: err.details } : {}) };
  const reason = err instanceof Error ? err.message : String(err);
  return {
    line: `The test services could not start: ${reason.split("\n")[0]}. See test-setup/ for what each service needs, or set ARBOR_TEST_POSTGRES / ARBOR_CHROMIUM to ones you run yourself.`,
    ...(err instanceof Error && err.stack ? { details: err.stack } : {}),
  };
}
