import { RequestError } from "../jsonrpc/index.js";
import { SchemaValidationError, type CompiledSchema, type MethodInfo } from "../protocol/index.js";

/**
 * The params an incoming request or notification is handled with: parsed by the route's own parser when it has one,
 * else by the method's schema (leniently, per its annotations), else passed as they came; absent or `null` params
 * are `{}`. What does not parse is a -32602 `RequestError` carrying the schema's issues (or the parser's message).
 */
export function parseIncoming(
  schemas: Readonly<Record<string, CompiledSchema<unknown>>>,
  custom: ((params: unknown) => unknown) | undefined,
  info: MethodInfo | undefined,
  params: unknown,
): unknown {
  const value = params === undefined || params === null ? {} : params;
  try {
    if (custom !== undefined) return custom(value);
    if (info === undefined) return value;
    return schemas[info.params]!.parse(value);
  } catch (error) {
    if (error instanceof RequestError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const issues = error instanceof SchemaValidationError ? error.issues : undefined;
    throw RequestError.invalidParams(issues === undefined ? { message } : { issues }, message);
  }
}
