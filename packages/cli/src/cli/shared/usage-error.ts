/**
 * A command-line mistake (a bad flag, an unreadable file a flag names): the command prints the message and exits
 * with code 2. Shared by `acp exec` and `acp chat`.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
