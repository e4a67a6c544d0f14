/**
 * The library's logger for `acp exec`'s connection. exec decides what reaches stderr itself, so the library's lines
 * are dropped, but one: a notification of the agent that fails the ACP schema is ignored by the connection, and the
 * user must not lose what the agent said without a word. It becomes a warning (each distinct problem once).
 */
import type { Logger } from "@acpkit/sdk";

const ignore = () => {};

export function droppedUpdates(warn: (message: string) => void): Logger {
  const reported = new Set<string>();
  return {
    debug: ignore,
    info: ignore,
    error: ignore,
    warn(message, fields) {
      if (message !== "ignored an invalid notification") return;
      const method = typeof fields?.method === "string" ? fields.method : "notification";
      const detail = typeof fields?.detail === "string" ? fields.detail : "";
      const key = `${method}\n${detail}`;
      if (reported.has(key)) return;
      reported.add(key);
      warn(`the agent sent a ${method} that does not match the ACP schema, so it was not shown: ${detail}`);
    },
  };
}
