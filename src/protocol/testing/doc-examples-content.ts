import type { DocExample } from "./doc-examples.js";

/** The documentation's examples from the Agent Plan, Content, Extensibility and File System pages. */
export const CONTENT_EXAMPLES: DocExample[] = [
  {
    doc: "Creating Plans",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "plan",
        entries: [
          { content: "Analyze the existing codebase structure", priority: "high", status: "pending" },
          { content: "Identify components that need refactoring", priority: "high", status: "pending" },
          { content: "Create unit tests for critical functions", priority: "medium", status: "pending" },
        ],
      },
    },
  },
  { doc: "Text Content", def: "ContentBlock", value: { type: "text", text: "What's the weather like today?" } },
  {
    doc: "Image Content",
    def: "ContentBlock",
    value: { type: "image", mimeType: "image/png", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB..." },
  },
  {
    doc: "Audio Content",
    def: "ContentBlock",
    value: { type: "audio", mimeType: "audio/wav", data: "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAAB..." },
  },
  {
    doc: "Embedded Resource",
    def: "ContentBlock",
    value: {
      type: "resource",
      resource: {
        uri: "file:///home/user/script.py",
        mimeType: "text/x-python",
        text: "def hello():\n    print('Hello, world!')",
      },
    },
  },
  {
    doc: "Resource Link",
    def: "ContentBlock",
    value: {
      type: "resource_link",
      uri: "file:///home/user/document.pdf",
      name: "document.pdf",
      mimeType: "application/pdf",
      size: 1024000,
    },
  },
  {
    doc: "The `_meta` Field",
    method: "session/prompt",
    value: {
      sessionId: "sess_abc123def456",
      prompt: [{ type: "text", text: "Hello, world!" }],
      _meta: { "zed.dev/debugMode": true },
    },
  },
  { doc: "Custom Requests", def: "Error", value: { code: -32601, message: "Method not found" } },
  {
    doc: "Advertising Custom Capabilities",
    def: "InitializeResponse",
    value: {
      protocolVersion: 1,
      agentCapabilities: { loadSession: true, _meta: { "zed.dev": { workspace: true, fileNotifications: true } } },
    },
  },
  {
    doc: "Checking Support",
    def: "InitializeResponse",
    value: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } },
  },
  {
    doc: "Reading Files",
    method: "fs/read_text_file",
    value: { sessionId: "sess_abc123def456", path: "/home/user/project/src/main.py", line: 10, limit: 50 },
  },
  {
    doc: "Reading Files",
    def: "ReadTextFileResponse",
    value: { content: "def hello_world():\n    print('Hello, world!')\n" },
  },
  {
    doc: "Writing Files",
    method: "fs/write_text_file",
    value: {
      sessionId: "sess_abc123def456",
      path: "/home/user/project/config.json",
      content: '{\n  "debug": true,\n  "version": "1.0.0"\n}',
    },
  },
  { doc: "Writing Files", def: "WriteTextFileResponse", value: null },
];
