import type { Client } from "@acpkit/sdk";
import type { PermissionBroker, TranscriptRouter, TurnGuard } from "@acpkit/sdk/client-toolkit";
import type { FileSystemHost, TerminalHost } from "@acpkit/sdk/node";
import { sharedEchoOf } from "./attach.js";
import type { TerminalViews } from "./terminal-views.js";

/** What the chat's client handlers hand the agent's requests and updates to. */
export interface ChatClientParts {
  router: TranscriptRouter;
  guard: TurnGuard;
  broker: PermissionBroker;
  fsHost: FileSystemHost;
  terminalHost: TerminalHost;
  terminals: TerminalViews;
}

/**
 * The chat's side of the protocol: updates go to the session's transcript (watched by the turn guard, except in a
 * shared session), permission requests to the broker, file and terminal requests to the hosts.
 */
export function chatClient({ router, guard, broker, fsHost, terminalHost, terminals }: ChatClientParts): Client {
  return {
    sessionUpdate: (params) => {
      const echo = sharedEchoOf(router);
      // In a shared session other clients' turns come any time: "late" updates are theirs, not the agent's fault.
      if (!echo.attached) guard.observe(params);
      router.route(echo.toTranscript(params));
    },
    // What an observer is told of the permission requests put to the controllers: a notice in the transcript.
    extNotification: (method, params) => {
      const notice = sharedEchoOf(router).fromExtension(method, params);
      if (notice !== undefined) router.route(notice as Parameters<TranscriptRouter["route"]>[0]);
    },
    requestPermission: (params) => broker.request(params),
    readTextFile: (params) => fsHost.readTextFile(params),
    writeTextFile: (params) => fsHost.writeTextFile(params),
    createTerminal: async (params) => {
      const response = await terminalHost.createTerminal(params);
      terminals.created(params.sessionId, response.terminalId);
      return response;
    },
    terminalOutput: (params) => terminalHost.terminalOutput(params),
    waitForTerminalExit: (params) => terminalHost.waitForTerminalExit(params),
    killTerminal: (params) => terminalHost.killTerminal(params),
    releaseTerminal: (params) => terminalHost.releaseTerminal(params),
  };
}
