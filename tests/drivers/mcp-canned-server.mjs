// mcp-canned-server: a stdio server of canned answers, for tests/send-mcp.bats: what the real
// peers do not do on demand (an UnsupportedProtocolVersionError, a ping of the server's in the
// middle of a call, silence). Its file maps a method to the lines that answer a request of it,
// the string "$id" standing for the request's id; null maps a method to no answer; a method it
// does not map is answered with -32601. Notifications and responses are read and left alone.
// Usage: node mcp-canned-server.mjs FILE  (FILE: {"server/discover": [{"jsonrpc": "2.0", "id":
// "$id", ...}], ...})
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const canned = JSON.parse(readFileSync(process.argv[2], "utf8"));

function withId(value, id) {
    if (value === "$id") return id;
    if (Array.isArray(value)) return value.map(v => withId(v, id));
    if (value && typeof value === "object")
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withId(v, id)]));
    return value;
}

for await (const line of createInterface({ input: process.stdin })) {
    let msg;
    try {
        msg = JSON.parse(line);
    } catch {
        continue;
    }
    if (typeof msg.method !== "string" || msg.id === undefined) continue;
    const answer = msg.method in canned ? canned[msg.method]
        : [{ jsonrpc: "2.0", id: "$id", error: { code: -32601, message: "Method not found" } }];
    for (const out of answer ?? []) process.stdout.write(JSON.stringify(withId(out, msg.id)) + "\n");
}
