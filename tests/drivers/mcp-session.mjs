// mcp-session: a session of the MCP TypeScript SDK's client (v1) with a stdio server started by
// the given command (through acp-tap, in the tests): initialize and initialized, ping, the lists
// of tools, resources and prompts, a call of the echo tool, then the end of the session. Prints
// the tool's answer. With MCP_SESSION=progress, a call of server-everything's long running
// operation with progress instead, then one the client cancels at its first progress; prints
// the progress it saw. With MCP_SESSION=rounds:N, N calls of echo one after the other, printing
// the microseconds each took (bench/run). With MCP_SESSION=tools, the list of tools and the call
// of echo alone (what a server of tools alone offers). With MCP_SESSION=tasks, server-everything's research query run
// as a task (2025-11-25) that asks the client for a clarification on its way; prints the kinds of
// the stream's messages, each run of one kind once.
// Usage: [MCP_SESSION=progress|tools|tasks|rounds:N] node mcp-session.mjs COMMAND...
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const tasks = process.env.MCP_SESSION === "tasks";
const client = new Client(
    { name: "acp-tools-tests", version: "1.0.0" },
    { capabilities: tasks ? { elicitation: {} } : {} },
);
if (tasks) // the SDK refuses a handler of a capability the client does not declare
    client.setRequestHandler(ElicitRequestSchema, async () => ({
        action: "accept",
        content: { interpretation: "the first" },
    }));
await client.connect(transport);

async function tasksSession() {
    const query = { name: "simulate-research-query", arguments: { topic: "ants", ambiguous: true } };
    const kinds = [];
    for await (const message of client.experimental.tasks.callToolStream(query, undefined, { task: { ttl: 60000 } }))
        if (kinds.at(-1) !== message.type) kinds.push(message.type); // its polls are as time goes
    console.log(JSON.stringify(kinds));
}

async function progressSession() {
    const long = { name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } };
    const seen = [];
    await client.callTool(long, undefined, { onprogress: (p) => seen.push(p.progress) });
    const abort = new AbortController();
    const cancelled = client.callTool({ ...long, arguments: { duration: 0.6, steps: 3 } }, undefined, {
        signal: abort.signal,
        onprogress: () => abort.abort("enough"),
    });
    await cancelled.catch(() => seen.push("cancelled"));
    // what the server still sends for the cancelled call reaches the capture meanwhile
    await new Promise((resolve) => setTimeout(resolve, 700));
    console.log(JSON.stringify(seen));
}

/* bench/run: N calls of echo, one after the other; prints the microseconds each took. */
async function roundsSession(n) {
    for (let i = 0; i < n; i++) {
        const t0 = process.hrtime.bigint();
        await client.callTool({ name: "echo", arguments: { message: `m${i}` } });
        console.log(Number(process.hrtime.bigint() - t0) / 1000);
    }
}

if (process.env.MCP_SESSION?.startsWith("rounds:")) {
    await roundsSession(Number(process.env.MCP_SESSION.slice(7)));
} else if (process.env.MCP_SESSION === "progress") {
    await progressSession();
} else if (tasks) {
    await tasksSession();
} else {
    if (process.env.MCP_SESSION !== "tools") {
        await client.ping();
        await client.listTools();
        await client.listResources();
        await client.listPrompts();
    } else {
        await client.listTools();
    }
    const answer = await client.callTool({ name: "echo", arguments: { message: "hi" } });
    console.log(JSON.stringify(answer.content));
}
await client.close();
