/** Wording shared by the rules' messages. */
import { frameText, type Side, type WireEvent } from "../events.js";

export const the = (side: Side): string => `the ${side}`;
export const The = (side: Side): string => `The ${side}`;
export const other = (side: Side): Side => (side === "agent" ? "client" : "agent");

/** `session/prompt (id 3)`, `session/update`, `a line that is not JSON`. */
export function what(event: WireEvent): string {
  if (event.type === "request" || (event.type === "response" && event.method))
    return `${event.method} (id ${JSON.stringify(event.id)})`;
  if (event.type === "notification") return event.method ?? "a notification";
  if (event.type === "response") return `a response (id ${JSON.stringify(event.id)})`;
  return frameText(event, 80);
}
