import type { Logger } from "../jsonrpc/index.js";
import type { MethodInfo, ValidationIssue } from "../protocol/index.js";

/** Distinct schema problems reported per connection; past this, new kinds of problem are no longer reported. */
const MAX_REPORTED_PROBLEMS = 256;

/** What was off the schema: a message this side sent, a result it answered with, or a result the peer sent. */
export type ReportedDirection = "sent" | "answered" | "received";

/**
 * Reports a connection's schema problems through its logger, once per kind of problem (direction, method, schema,
 * first path, expectation), so that a stream of messages with the same newer update kind is one line, not thousands.
 */
export class SchemaReports {
  private readonly reported = new Set<string>();

  constructor(private readonly logger: Logger) {}

  report(what: ReportedDirection, info: MethodInfo, schema: string, issues: ValidationIssue[]): void {
    const first = issues[0];
    const key = `${what} ${info.method} ${schema} ${first?.path} ${first?.expected}`;
    if (this.reported.has(key) || this.reported.size >= MAX_REPORTED_PROBLEMS) return;
    this.reported.add(key);
    const message =
      what === "received"
        ? `the peer's ${info.method} result does not match the schema (${schema}); passed through as received ` +
          `(validateResponses: "strict" rejects it)`
        : `${what === "sent" ? "sent" : "answered"} a ` +
          `${info.method} ${what === "sent" ? info.kind : "result"} that does not match the schema (${schema}); ` +
          `sent anyway (validateOutgoing: "strict" refuses it)`;
    this.logger.warn(message, { method: info.method, schema, issues: issues.slice(0, 5) });
  }
}
