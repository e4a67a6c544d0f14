import type { DocExample } from "./doc-examples.js";

/** The documentation's examples from the Slash Commands, Terminals and Tool Calls pages. */
export const TOOL_EXAMPLES: DocExample[] = [
  {
    doc: "Advertising commands",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "available_commands_update",
        availableCommands: [
          { name: "web", description: "Search the web for information", input: { hint: "query to search for" } },
          { name: "test", description: "Run tests for the current project" },
          {
            name: "plan",
            description: "Create a detailed implementation plan",
            input: { hint: "description of what to plan" },
          },
        ],
      },
    },
  },
  {
    doc: "Running commands",
    method: "session/prompt",
    value: { sessionId: "sess_abc123def456", prompt: [{ type: "text", text: "/web agent client protocol" }] },
  },
  {
    doc: "Checking Support",
    def: "InitializeResponse",
    value: { protocolVersion: 1, clientCapabilities: { terminal: true } },
  },
  {
    doc: "Executing Commands",
    method: "terminal/create",
    value: {
      sessionId: "sess_abc123def456",
      command: "npm",
      args: ["test", "--coverage"],
      env: [{ name: "NODE_ENV", value: "test" }],
      cwd: "/home/user/project",
      outputByteLimit: 1048576,
    },
  },
  { doc: "Executing Commands", def: "CreateTerminalResponse", value: { terminalId: "term_xyz789" } },
  {
    doc: "Embedding in Tool Calls",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "call_002",
        title: "Running tests",
        kind: "execute",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: "term_xyz789" }],
      },
    },
  },
  {
    doc: "Getting Output",
    method: "terminal/output",
    value: { sessionId: "sess_abc123def456", terminalId: "term_xyz789" },
  },
  {
    doc: "Getting Output",
    def: "TerminalOutputResponse",
    value: {
      output: "Running tests...\n✓ All tests passed (42 total)\n",
      truncated: false,
      exitStatus: { exitCode: 0, signal: null },
    },
  },
  {
    doc: "Waiting for Exit",
    method: "terminal/wait_for_exit",
    value: { sessionId: "sess_abc123def456", terminalId: "term_xyz789" },
  },
  { doc: "Waiting for Exit", def: "WaitForTerminalExitResponse", value: { exitCode: 0, signal: null } },
  {
    doc: "Killing Commands",
    method: "terminal/kill",
    value: { sessionId: "sess_abc123def456", terminalId: "term_xyz789" },
  },
  {
    doc: "Releasing Terminals",
    method: "terminal/release",
    value: { sessionId: "sess_abc123def456", terminalId: "term_xyz789" },
  },
  {
    doc: "Creating",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "call_001",
        title: "Reading configuration file",
        kind: "read",
        status: "pending",
      },
    },
  },
  {
    doc: "Updating",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_001",
        status: "in_progress",
        content: [{ type: "content", content: { type: "text", text: "Found 3 configuration files..." } }],
      },
    },
  },
  {
    doc: "Requesting Permission",
    method: "session/request_permission",
    value: {
      sessionId: "sess_abc123def456",
      toolCall: { toolCallId: "call_001" },
      options: [
        { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
        { optionId: "reject-once", name: "Reject", kind: "reject_once" },
      ],
    },
  },
  {
    doc: "Requesting Permission",
    def: "RequestPermissionResponse",
    value: { outcome: { outcome: "selected", optionId: "allow-once" } },
  },
  { doc: "Requesting Permission", def: "RequestPermissionResponse", value: { outcome: { outcome: "cancelled" } } },
  {
    doc: "Regular Content",
    def: "ToolCallContent",
    value: { type: "content", content: { type: "text", text: "Analysis complete. Found 3 issues." } },
  },
  {
    doc: "Diffs",
    def: "ToolCallContent",
    value: {
      type: "diff",
      path: "/home/user/project/src/config.json",
      oldText: '{\n  "debug": false\n}',
      newText: '{\n  "debug": true\n}',
    },
  },
  { doc: "Terminals", def: "ToolCallContent", value: { type: "terminal", terminalId: "term_xyz789" } },
  { doc: "Following the Agent", def: "ToolCallLocation", value: { path: "/home/user/project/src/main.py", line: 42 } },
];
