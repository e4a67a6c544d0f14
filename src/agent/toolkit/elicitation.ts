/**
 * Elicitation for a prompt turn: ask the user for structured input through a form, or send them to a URL, only in a
 * mode the client advertised. The request carries the turn's signal, so cancelling the turn cancels it.
 * The spec: agents MUST NOT request a mode the client has not advertised (`clientCapabilities.elicitation.form` /
 * `.url`, each present and non-null); form mode MUST NOT ask for secrets (use URL mode); agents MUST NOT assume an
 * elicitation succeeds (handle `decline` and `cancel`); a URL elicitation's id MUST be unique among the outstanding
 * ones of the connection, and the agent MAY send `elicitation/complete` with it when the external interaction ends.
 * @see https://agentclientprotocol.com/protocol/elicitation
 */
import { CapabilityMissingError } from "../../jsonrpc/index.js";
import {
  hasCapability,
  type ClientCapabilities,
  type CreateElicitationResponse,
  type ElicitationSchema,
} from "../../protocol/index.js";
import type { ClientAccessContext } from "./client-access.js";

/** A form elicitation: the client renders `requestedSchema` (a flat object of primitive properties). */
export interface FormElicitation {
  mode: "form";
  message: string;
  requestedSchema: ElicitationSchema;
  /** Ties the elicitation to a tool call of the session. */
  toolCallId?: string;
}

/** A URL elicitation: the client asks consent and opens `url` out of band. `elicitationId` defaults to a fresh UUID. */
export interface UrlElicitation {
  mode: "url";
  message: string;
  url: string;
  elicitationId?: string;
  toolCallId?: string;
}

export type ElicitRequest = FormElicitation | UrlElicitation;

/** The client's answer; for URL mode also the id used and `complete()`, which sends `elicitation/complete`. */
export type ElicitResult = CreateElicitationResponse & { elicitationId?: string; complete?: () => Promise<void> };

/** Whether the client advertised elicitation `mode`. */
export function supportsElicitation(capabilities: ClientCapabilities | undefined, mode: "form" | "url"): boolean {
  return hasCapability(capabilities, ["elicitation", mode]);
}

/**
 * Sends `elicitation/create` scoped to the turn's session. Refuses with `CapabilityMissingError` (nothing sent) when
 * the client did not advertise the mode; rejects with an abort error when the turn is cancelled.
 */
export async function elicit(context: ClientAccessContext, request: ElicitRequest): Promise<ElicitResult> {
  if (!supportsElicitation(context.session.clientCapabilities, request.mode)) {
    throw new CapabilityMissingError("elicitation/create", `clientCapabilities.elicitation.${request.mode}`);
  }
  const params: Record<string, unknown> = {
    sessionId: context.sessionId,
    mode: request.mode,
    message: request.message,
  };
  if (request.toolCallId !== undefined) params.toolCallId = request.toolCallId;
  if (request.mode === "form") {
    params.requestedSchema = { type: "object", ...request.requestedSchema };
    return context.request<CreateElicitationResponse>("elicitation/create", params);
  }
  const elicitationId = request.elicitationId ?? globalThis.crypto.randomUUID();
  params.elicitationId = elicitationId;
  params.url = request.url;
  const response = await context.request<CreateElicitationResponse>("elicitation/create", params);
  return { ...response, elicitationId, complete: () => completeElicitation(context, elicitationId) };
}

/** Tells the client a URL elicitation's external interaction finished (`elicitation/complete`). */
export function completeElicitation(
  context: Pick<ClientAccessContext, "session">,
  elicitationId: string,
): Promise<void> {
  if (!supportsElicitation(context.session.clientCapabilities, "url")) {
    return Promise.reject(new CapabilityMissingError("elicitation/complete", "clientCapabilities.elicitation.url"));
  }
  return context.session.client.notify("elicitation/complete", { elicitationId });
}
