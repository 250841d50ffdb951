// Drives the official @ag-ui/client 1.0.0 HttpAgent for wire/agui's
// conformance tests (client_conformance_test.go):
//
//   node client.cjs DIR CASES.json
//
// DIR holds @ag-ui/core@1.0.0, @ag-ui/client@1.0.0 and zod@4.6.7 in its
// node_modules. CASES.json holds
//   {"inputs": [{"name", "input"}],   // RunAgentInput candidates
//    "runs":   [{"name", "sse"}]}     // response bodies for HttpAgent
//
// and the script prints one JSON document:
//
//   bodies: the exact request body HttpAgent POSTs for each of the agents
//           below (fetch is intercepted; the response is a minimal run);
//   inputs: RunAgentInputSchema.safeParse's verdict on each input, with the
//           paths of its issues;
//   runs:   what HttpAgent.runAgent made of each response body: whether it
//           resolved or failed, the RUN_ERROR its onRunErrorEvent received,
//           the events onEvent saw, the tool calls the application was
//           handed (onToolCallEndEvent, onNewToolCall), the agent's
//           messages and state afterwards, and every console warning.
"use strict";

const fs = require("fs");

const [dir, casesFile] = process.argv.slice(2);
if (!dir || !casesFile) {
  console.error("usage: node client.cjs DIR CASES.json");
  process.exit(2);
}
const load = (id) => require(require.resolve(id, { paths: [dir] }));
for (const [pkg, want] of [["@ag-ui/core", "1.0.0"], ["@ag-ui/client", "1.0.0"]]) {
  const got = load(`${pkg}/package.json`).version;
  if (got !== want) {
    console.error(`${pkg} in ${dir} is ${got}, want ${want}`);
    process.exit(1);
  }
}
const { HttpAgent } = load("@ag-ui/client");
const { RunAgentInputSchema } = load("@ag-ui/core/schemas");
const cases = JSON.parse(fs.readFileSync(casesFile, "utf8"));

const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
const response = (body) => new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });

// The agents whose request bodies the Go test parses: every message role
// HttpAgent sends (it drops activity messages itself), content parts of
// every kind and source, tool calls, tools, context, state, forwarded
// properties and resume entries.
const agents = [
  { name: "minimal", config: { threadId: "thread-1" }, params: { runId: "run-1" } },
  {
    name: "conversation",
    config: {
      threadId: "thread-2",
      initialState: { attempts: 2, nested: { list: [1, 2.5, "x", null, true], deep: { a: { b: { c: {} } } } } },
      initialMessages: [
        { id: "dev-1", role: "developer", content: "Be brief.", name: "ops" },
        { id: "sys-1", role: "system", content: "You triage incidents.", encryptedValue: "enc" },
        { id: "user-1", role: "user", content: "Why did the run fail?", metadata: { client: "web", n: null } },
        {
          id: "asst-1",
          role: "assistant",
          content: "Let me look.",
          toolCalls: [
            { id: "call-1", type: "function", function: { name: "search", arguments: '{"q":"run 42"}' } },
            { id: "call-2", type: "function", function: { name: "lookup", arguments: "" }, metadata: { k: 1 } },
          ],
        },
        { id: "tool-1", role: "tool", content: "3 results", toolCallId: "call-1" },
        {
          id: "tool-2",
          role: "tool",
          content: [{ type: "text", text: "not found" }],
          toolCallId: "call-2",
          error: "lookup failed",
        },
        { id: "asst-2", role: "assistant", toolCalls: [] },
        { id: "think-1", role: "reasoning", content: "Check the gateway.", encryptedValue: "r" },
        { id: "act-1", role: "activity", activityType: "progress", content: { done: 1 } },
        { id: "asst-3", role: "assistant", content: "From a subagent.", subagentRunId: "sub-1" },
        {
          id: "user-2",
          role: "user",
          name: "ana",
          content: [
            { type: "text", text: "Here: ", id: "p1" },
            { type: "image", source: { type: "data", value: "iVBORw0KGgo=", mimeType: "image/png" } },
            { type: "document", source: { type: "url", value: "https://example.com/r.pdf" }, metadata: "m" },
            { type: "audio", source: { type: "file", value: "file-1", provider: "openai", mimeType: "audio/wav" } },
            { type: "video", source: { type: "url", value: "https://example.com/v.mp4", mimeType: "video/mp4" } },
            { type: "text", text: "and fix it." },
          ],
        },
      ],
    },
    params: {
      runId: "run-2",
      tools: [
        {
          name: "confirm",
          description: "Ask the user to confirm.",
          parameters: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
          metadata: { frontend: true },
        },
        { name: "noop", description: "" },
      ],
      context: [
        { description: "locale", value: "en-GB" },
        { description: "", value: "" },
      ],
      forwardedProps: { tenant: "acme", flags: [true, false], big: 12345678901234567890 },
      resume: [
        { interruptId: "int-1", status: "resolved", payload: { approved: true } },
        { interruptId: "int-2", status: "cancelled", metadata: {} },
      ],
    },
  },
  {
    name: "unicode",
    config: {
      threadId: "thread-ü",
      initialMessages: [{ id: "user-ü", role: "user", content: 'Ünïcödé 😀 <b>&amp;</b> "quotes" \\ back\nslash\t\u2028' }],
    },
    params: { runId: "run-3", forwardedProps: "a string is a value too" },
  },
];

async function captureBody(agent) {
  let body;
  const a = new HttpAgent({
    url: "http://agent.test/run",
    ...agent.config,
    fetch: async (_url, init) => {
      body = init.body;
      const run = { threadId: agent.config.threadId, runId: agent.params.runId };
      return response(sse([{ type: "RUN_STARTED", ...run }, { type: "RUN_FINISHED", ...run }]));
    },
  });
  await a.runAgent(agent.params);
  return body;
}

async function runStream(run) {
  const report = {
    name: run.name,
    resolved: false,
    error: null,
    failed: null,
    runError: null,
    runFinished: false,
    events: [],
    toolCallEnds: [],
    newToolCalls: [],
    messages: null,
    state: null,
    warnings: [],
  };
  const warn = console.warn;
  const error = console.error;
  console.warn = (...args) => report.warnings.push(args.join(" "));
  console.error = (...args) => report.warnings.push("error: " + args.join(" "));
  const agent = new HttpAgent({
    url: "http://agent.test/run",
    threadId: "t",
    initialMessages: [{ id: "u1", role: "user", content: "hi" }],
    fetch: async () => response(run.sse),
  });
  try {
    await agent.runAgent(
      { runId: "r" },
      {
        onEvent: ({ event }) => {
          report.events.push(event.type);
        },
        onRunErrorEvent: ({ event }) => {
          report.runError = { message: event.message, code: event.code, metadata: event.metadata };
        },
        onRunFinishedEvent: () => {
          report.runFinished = true;
        },
        onRunFailed: ({ error }) => {
          report.failed = String(error && error.message);
        },
        onToolCallEndEvent: ({ event, toolCallArgs }) => {
          report.toolCallEnds.push({ id: event.toolCallId, args: toolCallArgs });
        },
        onNewToolCall: ({ toolCall }) => {
          report.newToolCalls.push(toolCall);
        },
      },
    );
    report.resolved = true;
  } catch (e) {
    report.error = String(e && e.message);
  } finally {
    console.warn = warn;
    console.error = error;
  }
  report.messages = agent.messages;
  report.state = agent.state;
  return report;
}

(async () => {
  const out = { bodies: [], inputs: [], runs: [] };
  for (const agent of agents) {
    out.bodies.push({ name: agent.name, body: await captureBody(agent) });
  }
  for (const c of cases.inputs || []) {
    const r = RunAgentInputSchema.safeParse(c.input);
    out.inputs.push({
      name: c.name,
      success: r.success,
      issues: r.success ? [] : r.error.issues.map((i) => i.path.join(".") + ": " + i.message),
    });
  }
  for (const run of cases.runs || []) {
    out.runs.push(await runStream(run));
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => {
  console.error(`harness error: ${e && e.stack}`);
  process.exit(1);
});
