/* Every diagnostic code the tools can print, with its explanation: the source of --explain and of
 * the code list in acp(7) (a test keeps the two in step). Codes are stable: never rename one.
 * Here the codes of the input contract and of the tools; each dialect's are in its own file
 * (proto/iacp_codes.c, proto/fipa_codes.c), listed in diag_dialect_tables. */
#include <string.h>

#include "diag/diag.h"

static const struct diag_code input_codes[] = {
    /* The input contract: lines that are not a single well-formed JSON object. */
    {"io-error", "error", "a file could not be opened, read or written",
     "The file named on the command line could not be opened or read (it is missing, a "
     "directory, or unreadable), or an output could not be written. The file is skipped, the "
     "others are still processed, and the exit status is 2. An output that is also an input, "
     "or -o and --rejects naming one file, stops the run before anything is read."},
    {"bad-json", "error", "the line is not valid JSON",
     "The line could not be parsed as JSON. The column points at the token where the parser "
     "stopped; a line that is a word and a space before a JSON object is told as a topic "
     "before the JSON, at column 1 (mosquitto_sub -v writes each message so). The line is "
     "rejected and the stream goes on."},
    {"not-object", "error", "the line's top-level value is not an object",
     "Every message is one JSON object per line; an array, string, number, true, false or null "
     "at the top level is not a message."},
    {"capture-form", "error", "a record of another form than --from names",
     "acp-convert --from=tap or --from=mcpsnoop says which form of capture the input is: a "
     "record of the other form, or a line that is no capture record, is rejected; the others "
     "go on. --from=jsonrpc reads every line as a bare message, a capture record too (which "
     "then speaks no dialect)."},
    {"capture-not-message", "error", "a line of a capture is no message",
     "In a capture file (acp-tap's, or an mcpsnoop session log), the record of a line that was "
     "not JSON (a stray print on a server's stdout, which breaks the one-message-a-line framing "
     "of a stdio transport: MCP's Transports, stdio, MUST NOT write anything that is not a "
     "message), or of one longer than acp-tap's --max-line-bytes, whose text was not kept, or "
     "cut at mcpsnoop's frame cap. The record is rejected; the others go on."},
    {"capture-not-object", "error", "a message of a capture is not an object",
     "In a capture file (acp-tap's, or an mcpsnoop session log), the record of a line that was "
     "JSON but no object: a "
     "scalar, or an array that is no batch (a JSON-RPC batch, an array of messages, is one "
     "message of MCP, which its checks read). The record is rejected; the others go on."},
    {"trailing-data", "error", "bytes follow the object on the same line",
     "After the closing brace of the object only white space may follow; two objects on one line "
     "are two messages glued together, which a bus never delivers."},
    {"duplicate-key", "error", "an object has the same key twice",
     "JSON parsers disagree on which of two equal keys wins, so a message with duplicate keys "
     "means different things to different agents. It is rejected. In the FIPA string form the "
     "same goes for a parameter given twice (names compared without regard to case, in a "
     "message or in an agent-identifier) and for two parameters that give one member a value."},
    {"bad-utf8", "error", "the line is not valid UTF-8",
     "JSON text must be UTF-8. Overlong forms, surrogates, code points above U+10FFFF, stray "
     "continuation bytes and truncated sequences are rejected, as are escapes such as \\ud800 "
     "that name a lone surrogate."},
    {"nul-byte", "error", "the line holds a NUL character",
     "A NUL byte, raw or written as \\u0000, truncates strings in most C consumers and is never "
     "part of a legitimate message."},
    {"bom-mid-stream", "error", "a byte-order mark starts a line after the start of the stream",
     "A UTF-8 byte-order mark is dropped when it starts a file; anywhere else it is a sign of "
     "files concatenated carelessly, and the line is rejected."},
    {"number-range", "error", "a number is too large to represent",
     "An integer outside the signed 64-bit range, or a real number that overflows a double. "
     "Consumers would silently round or wrap it."},
    {"too-deep", "error", "values are nested too deeply",
     "Objects and arrays nested more than 2048 levels deep are rejected, so that no input can "
     "exhaust the stack of a consumer."},
    {"line-too-long", "error", "the line is longer than --max-line-bytes",
     "A line longer than the limit (default 1 MiB) is never held in memory whole: it is skipped "
     "without being parsed, and copied to --rejects in pieces when that is given. A message of "
     "the string form longer than the limit is skipped the same way, as one record: up to its "
     "end, or, when it cannot be a message, up to the next line that starts one."},
    {"no-protocol", "error", "the message is neither IACP, FIPA nor MCP",
     "With --protocol=auto a message with a 'kind' or 'v' member is IACP, otherwise one with a "
     "'performative' member is FIPA, otherwise one with a 'jsonrpc' member is MCP. A message "
     "with none of them cannot be checked."},
    {NULL, NULL, NULL, NULL},
};

static const struct diag_code tool_codes[] = {
    /* Conversion (acp-convert) and the FIPA string form (SC00070). */
    {"acl-syntax", "error", "the FIPA string form could not be parsed",
     "A message of the string form is one parenthesised expression: (performative :parameter "
     "value ...), its agents (agent-identifier :name ...) in (set ...), addresses in (sequence "
     "...). The diagnostic names the line and byte column where reading stopped (an unclosed "
     "string or parenthesis is reported where it opened). Only the broken message is lost: it "
     "ends before the first line inside it that starts with '(' and a communicative act, or "
     "with '{' (a line of JSON), and reading goes on there; a valid message is never cut, whatever "
     "its lines hold. A line "
     "outside a message that does not start with '(', and what follows a message on its line, "
     "is a record of its own, rejected with this error."},
    {"acl-performative", "error", "the message type is not a FIPA communicative act",
     "The first word of a message of the string form must be one of the 22 acts of SC00037 (or "
     "counter-propose), in any case: REQUEST, request, accept-proposal, ACCEPT-PROPOSAL. The "
     "writer's marker :X-acp-performative counter_propose makes a propose a counter_propose; "
     "with another value, or in another act, it is this error."},
    {"acl-time", "error", "a date-time of the string form cannot be read",
     ":reply-by takes a date-time such as 20240115T103500000Z (the milliseconds may be left "
     "out). A relative time such as +00000000T000500000 counts from --now, with JADE's 30-day "
     "months and 365-day years; one that falls outside the years 0 to 9999 is this error."},
    {"acl-time-zone", "warning", "a date-time of the string form without Z",
     "SC00070 names only Z (UTC) as a type designator, and JADE reads a date-time without it "
     "as local time. A log read elsewhere has no trustworthy local zone, so a date-time with no "
     "letter, or with another letter (JADE's own test data has ...100A), is read as UTC and "
     "this warning says so. Its spelling is kept in x-acp-reply-by and written back as it "
     "came."},
    {"acl-parameter", "warning", "a parameter the string form does not define",
     "Parameters other than those of SC00061 must start with X-. An unknown one is kept as a "
     "member of the same name."},
    {"acl-json", "warning", "content said to be JSON is not JSON",
     "With :language json (or the writer's :X-acp-json-content marker) the content is read as "
     "JSON. When it does not parse it is kept as a string."},
    {"convert-iacp", "error", "an IACP message cannot be converted",
     "The message has no string kind, or its kind is not an IACP kind (a dotted name or "
     "fipa.<act>). Nothing can say what FIPA act it is, so it is reported and skipped."},
    {"convert-fipa", "error", "a FIPA message cannot be converted",
     "The message has no string performative, or it is not a FIPA communicative act in any "
     "known spelling, so it is reported and skipped."},
    {"convert-no-mapping", "error", "a message of a dialect acp-convert does not map",
     "acp-convert maps IACP and FIPA into each other, and writes MCP's messages bare "
     "(--to=jsonrpc); a message of MCP has no mapping to IACP or FIPA, nor one of IACP or FIPA "
     "to JSON-RPC, so it is reported and skipped."},
    {"convert-capture", "error", "a record acp-tap's form cannot carry",
     "acp-convert --to=tap writes each record of a capture as acp-tap writes one: acp-tap's "
     "own as they are, mcpsnoop's made of what they say (its meta record a start event with no "
     "pid), and a bare line of JSON-RPC with its file as its session and the direction its "
     "method, or the request it answers, says. A line of a server's stderr (which acp-tap "
     "leaves alone), a frame cut short (whose whole length acp-tap's record says), a record "
     "without a time or a seq, a bare line of another dialect, and one whose direction "
     "neither its method (ping, which both sides send) nor a request in progress says, have "
     "no record of acp-tap's: each is reported and skipped."},
    {"convert-no-time", "warning", "bare lines made records without a time",
     "acp-convert --to=tap of bare JSON-RPC lines: a bare line says no time, so each record "
     "it makes has a null time, and the file's name for its session; told once a file. What "
     "needs a time (latencies, acp-replay's schedule, --request-timeout) has none to read."},
    {"convert-kind-unknown", "warning", "an unknown dotted IACP kind written as inform",
     "The mapping table has no row for the kind; it is written as an inform without a "
     "protocol, and x-iacp-kind keeps the kind so that the way back is exact."},
    {"convert-unwritable", "error", "a FIPA message cannot be written in the string form",
     "The string form cannot carry it: sender or receiver is not an agent identifier, reply_by "
     "is not an RFC 3339 date-time of the years 0 to 9999, a standard parameter is not a "
     "string, a string holds a NUL character or a control character a terminal acts on (ESC, "
     "BEL, a CR that ends no line, DEL, C1, a direction override: the string form has no "
     "escape for them, and raw they would act on the terminal of whoever reads the output), a "
     "member name holds white space or parentheses, "
     "two member names differ only in case (parameter names do not tell them apart), "
     "x-acp-expressions names a member whose text is not one parenthesised expression, or "
     "x-acp-quoted names a member whose value is not a string."},
    {"convert-output-invalid", "error", "the converted message would break its protocol's rules",
     "The output would not pass acp-validate --stateless for its protocol, so the input record "
     "is rejected rather than written: a FIPA message without sender or receiver has no IACP "
     "from or to, a receiver set may be empty, an IACP message may lack the id or ts that "
     "x-iacp- members would have given it. The message names the codes acp-validate would "
     "report. The direction rules, which depend on the queen's name, are not applied."},
    {"convert-output-standard", "warning",
     "the converted FIPA message is valid in the standard profile only",
     "FIPA's standard (SC00061) makes only the performative mandatory; the Caxton guide also "
     "requires sender, receiver and content. A message without them (JADE sends some, such as "
     "a subscription's cancel) is written, with this warning: acp-validate with the default "
     "profile would reject it."},

    /* Transport: the peer a tool sends to (acp-replay and acp-send --connect / --exec). */
    {"peer-connect", "error", "the peer cannot be reached, or the command cannot be started",
     "--connect could not open the connection within --io-timeout (refused, no such socket, no "
     "such host, timed out), or the --exec command could not be run (not found, not "
     "executable). Nothing was read or sent, and the exit status is 2."},
    {"peer-closed", "error", "the peer closed the connection, or the child exited, before the end",
     "Writing to the peer failed because it went away: it closed the connection, reset it, or "
     "(with --exec) the command exited or closed its input; or, with acp-send --wait, it went "
     "away while a conversation was awaited (the diagnostic is then at the message sent, and "
     "says what was awaited). The diagnostic says how the "
     "command ended (its exit status or the signal that killed it) and how many messages were "
     "sent. With acp-send --wait, a command that exits is gone at once, even while something "
     "it started holds its output open: what it wrote before it exited is read first. The run "
     "stops, and the exit status is 2."},
    {"peer-timeout", "error", "the peer stopped reading",
     "A write to the peer made no progress for --io-timeout (default 10 s): the peer does not "
     "read what it is sent. Waiting longer could wait for ever, so the run stops, and the exit "
     "status is 2."},
    {"peer-garbage", "warning", "the peer wrote a line that is not a message",
     "acp-send reads what the peer writes as JSON Lines of IACP, FIPA or MCP messages. A line "
     "that is not one (not JSON, not an object, of no protocol, longer than --max-line-bytes, or "
     "cut short by the peer closing) is quoted in the diagnostic (its first 120 bytes, NULs and "
     "other control bytes escaped), located at the peer and the number of its line, and "
     "ignored: the conversation goes on."},

    /* Sending (acp-send): the reply it composes, and the conversations it follows (--wait). */
    {"send-answer", "error", "the reply to the message of --answer cannot be built",
     "With --answer the message is the reply to another one, so its protocol is that one's: a "
     "FIPA message is answered with a performative, an IACP one with a kind, an MCP request "
     "with a result or an error. A FIPA message "
     "that went to several receivers does not say which of them answers: give sender=NAME. The "
     "message is not sent."},
    {"send-not-followed", "error", "--wait cannot follow the replies of the message's dialect",
     "acp-send --wait follows IACP and FIPA conversations to their end, and an MCP request to its "
     "response; a dialect whose replies it cannot follow is told so, and the message is not "
     "sent: send it without --wait."},
    {"send-opening", "error", "the session with the peer could not be opened",
     "Before its first MCP request, acp-send opens the session as a client of both eras does "
     "(MCP 2026-07-28, Transports, stdio, Backward Compatibility): server/discover first, whose "
     "result, or UnsupportedProtocolVersionError (-32022), makes the session modern; any other "
     "error, or none within --io-timeout, makes it legacy: initialize, then "
     "notifications/initialized (--mcp-revision=REV skips the probe). The opening failed: the "
     "server refused initialize, agreed on a revision acp-send does not speak, named no modern "
     "revision it speaks, or did not answer initialize within --io-timeout. The message is not "
     "sent; the exit status is 2."},
    {"send-failed", "error", "the conversation ended in a refusal, a rejection or a failure",
     "With --wait, the peer's final answer said no: refuse, failure, not_understood or "
     "reject_proposal (FIPA), task.reject or a task.result whose body.status is not \"ok\" "
     "(IACP), an error response or a result whose isError is true (MCP), or every participant "
     "of a cfp refused. The diagnostic is at the message sent and quotes the answer; the exit "
     "status is 1."},
    {"send-timeout", "error", "no final answer came before the timeout",
     "With --wait, the conversation had not ended when --timeout ran out (by default the "
     "deadline the message states, its reply_by or body.deadline, when that is still to come, "
     "else 30 s; an MCP session's opening counts in it). The diagnostic says what was still "
     "awaited; the exit status is 3."},

    /* Replay (acp-replay), and its live-agent mode (--as). */
    {"replay-no-time", "error", "a message has no time to schedule it by",
     "With --speed (the default) each message goes at the time it has relative to the first: "
     "IACP ts, FIPA timestamp, else created_at (RFC 3339 or unix seconds). A message without "
     "any usable time cannot be scheduled; it is rejected and the replay goes on. --rate and "
     "--topspeed replay a stream without times. --start needs times as well."},
    {"replay-ts-range", "error", "a message's ts is no time this replay can schedule",
     "An IACP ts above 10^14 is neither unix seconds nor milliseconds of this era (acp-validate "
     "calls it iacp-ts-range). Waiting for it would never end, so with --speed (the default), "
     "or --start, the message is rejected and the replay goes on with the next. --rate and "
     "--topspeed, which read no times, send it."},
    {"agent-missing", "error", "a recorded reply did not come from the live agent",
     "In the recording the agent answered a message that was sent to the live agent, but no "
     "reply of that kind or performative came by its deadline: the later of --reply-timeout "
     "(default 5 s) and twice the delay the recording shows between the message and its reply. "
     "When the live agent's answer ended the conversation (a task.reject, refuse or failure, a "
     "final result), every reply still recorded is missing at once: nothing more can come. A "
     "partial result is a kind of its own, which the final result does not stand for. The "
     "diagnostic is at the recorded reply; related_line is the message it answers."},
    {"agent-kind", "error", "the live agent answered with another kind or performative",
     "No live reply of the recorded kind (IACP) or performative (FIPA) came by the deadline, "
     "or before the live conversation ended, but a reply of another kind to the same message "
     "did: the agent answered differently, for instance task.reject where the recording has "
     "task.accept, or refuse instead of agree; an MCP server's (error) where the recording has "
     "its (result)."},
    {"agent-differs", "error", "a live reply differs from the recorded one",
     "The live reply matched the recorded one by the message it answers and by its kind, but "
     "its sender, its receiver or a field listed with --compare (default body.status and "
     "content.status) differs; of an MCP server's response, also its error's code, or its "
     "result's shape: the names of its members and their JSON types, not their values. Ids and "
     "times are not compared: they differ by nature."},
    {"agent-extra", "error", "the live agent sent a reply the recording does not have",
     "The live agent answered a message it was sent (its ref or in_reply_to names it) more "
     "often, or otherwise, than the recording shows. Messages that answer nothing it was sent, "
     "such as heartbeats, are never extra. The diagnostic is at the message it answered."},
    {"serve-unrecorded", "warning", "a live client's request that the recording does not have",
     "acp-replay --serve=server answers each request of the live client with the response the "
     "recording has to the same request: its method and params (their _meta aside; initialize "
     "and server/discover by the method alone). This one it does not have: it was answered with "
     "error -32601 when the recording has no request of its method, else -32602 naming it. The "
     "client does not do what the recording did; --strict makes this an error."},
    {"serve-empty", "error", "the recording has nothing to serve",
     "acp-replay --serve=server answers a live client with the recorded server's responses to "
     "its client's requests, which only a capture says apart (acp-tap's records, mcpsnoop's "
     "log): the recording has none. Nothing is served, and the exit status is 1."},
    {"agent-absent", "error", "the recording has no message to or from the agent --as names",
     "acp-replay --as=AGENT sends the live agent what the recording sent AGENT and compares "
     "what it answers; the recording has no message to or from AGENT, so nothing was tested. "
     "In an MCP recording (acp-tap's, mcpsnoop's) the agents are the sides of its sessions, "
     "client and server."},
    {"agent-exited", "error", "the live agent exited or closed the connection during the replay",
     "The agent under test ended (the diagnostic gives its exit status or the signal that "
     "killed it) or closed the connection while replies were awaited or messages remained to "
     "be sent. An agent that exits is gone at once, even while something it started holds its "
     "output open: what it wrote before it exited is read and compared first. The replay ends "
     "there."},
    {"agent-hang", "error", "the live agent stopped answering or reading",
     "The agent wrote nothing at all between a message it was sent and the deadline of the "
     "reply the recording has, or it has not read its input for --io-timeout. It seems to "
     "hang; the replay ends, and the agent is killed after --grace."},
    {"agent-garbage", "error", "the live agent wrote a line that is not a message",
     "Every line the agent writes must be a JSON object of IACP or FIPA ACL. A line that is "
     "not (not JSON, not an object, neither protocol, or longer than --max-line-bytes) breaks "
     "the protocol: it is quoted in the diagnostic (its first 120 bytes, NULs and other control "
     "bytes escaped) and the replay ends."},

    /* Trace (acp-trace). */
    {"trace-stats-invalid", "error", "a line given to --merge-stats is no trace-stats object",
     "acp-trace --merge-stats merges the objects acp-trace --format=stats writes. The line is "
     "not one (another object, or a member missing or of the wrong type), or it was written "
     "with another version of the statistics or of the histogram scheme, whose buckets cannot "
     "be added to these; with --by-agent, it must have been written with --by-agent too. It is "
     "left out of the merge."},
    {"trace-span-invalid", "error", "a summary given to --merge has a span that cannot be read",
     "acp-trace --merge reads the summaries acp-trace --partition writes: a summary of a "
     "conversation whose story spans partitions (an IACP assign of a node) carries a span, what "
     "the merge needs of it. This one's span is not one (a member missing or of the wrong type), "
     "or it is of no dialect this version knows. The summary is written as the others are, "
     "without its span, and what spans partitions is told without it."},
    {"trace-span-secret", "warning", "partitions digested long names under different secrets",
     "A name longer than 128 bytes (an agent's, a body.node) or an id longer than 64 is "
     "remembered by its first bytes and a SipHash-128 digest under a secret drawn for the run, so "
     "that no input can make two of them one. acp-trace --merge compares such names and ids "
     "across partitions only when every partition made its digests under the same secret, which "
     "acp-trace --partition takes as --span-secret; these spans were made under another than the "
     "spans before them. The merge goes on, but a long name or id is then told apart within its "
     "partition only: a node reissued under a long name, or a long id the queen used twice, may "
     "go unseen across partitions."},
    {"trace-stats-capped", "warning", "a merge left latency pairs out",
     "acp-trace --merge-stats keeps the latency histograms of 1,024 request->reply pairs at most, "
     "overall and per agent; the tools write a few dozen, so more come from an object made by "
     "hand or by another program. Those past the first 1,024 are left out of the merged "
     "statistics (each histogram costs kilobytes: 80,000 of them in one line took 329 MiB); "
     "every count and the other pairs are whole."},
    {"trace-diagram-size", "warning", "a diagram is larger than its renderer draws by default",
     "acp-trace writes a diagram in pages that its renderer takes by default: Mermaid's "
     "maxTextSize (50,000 characters a diagram), PlantUML's largest image (4,096 pixels either "
     "way), rsvg-convert's and cairo's (32,767 pixels either way, for the whole SVG, whose pages "
     "are laid out side by side). This one does not fit: its SVG pages make a picture larger than "
     "that, or a message is more than a page holds (a message to so many receivers that one page "
     "cannot hold its arrows). The diagram is written all the same; draw less of it with "
     "--follow=ID (one conversation) or --hide=KIND (leave out, e.g., heartbeats), or in smaller "
     "pages with --page-size=N, which pack tighter. It is a warning: the exit status is 0 unless "
     "--strict."},
    {"trace-follow-unmatched", "warning", "--follow matched no conversation",
     "No message of the input belongs to the conversation that --follow names, so the output "
     "is empty: a conversation id is matched exactly, as the summaries write it (IACP ids are "
     "the initiator's name, a slash and the id, as in queen/q-00a1). When a conversation's id "
     "ends in a slash and the id given, the warning names it. It is a warning: the exit status "
     "is 0 unless --strict."},

    {NULL, NULL, NULL, NULL},
};

/* The tables in the order --explain=list and acp(7) give the codes: the input contract, each
 * dialect's, the tools'. */
static const struct diag_code *table_at(size_t i)
{
    if (i == 0)
        return input_codes;
    size_t n = 0;
    while (diag_dialect_tables[n])
        n++;
    if (i <= n)
        return diag_dialect_tables[i - 1];
    return i == n + 1 ? tool_codes : NULL;
}

const struct diag_code *diag_code_first(struct diag_code_walk *w)
{
    w->table = 0;
    w->at = table_at(0);
    return w->at;
}

const struct diag_code *diag_code_next(struct diag_code_walk *w)
{
    if (w->at[1].code)
        return ++w->at;
    const struct diag_code *t;
    while ((t = table_at(++w->table)) && !t->code)
        ;
    w->at = t;
    return t;
}

/* The linker keeps one copy of each string literal, so a code emitted is, in practice, the very
 * literal of its table entry: looking it up by address first spares a stream of findings a
 * hundred string comparisons each. */
static const struct diag_code *code_at(const char *code)
{
    const struct diag_code *t;
    for (size_t i = 0; (t = table_at(i)); i++)
        for (const struct diag_code *c = t; c->code; c++)
            if (c->code == code)
                return c;
    return NULL;
}

bool diag_code_is_error(const char *code)
{
    const struct diag_code *c = code_at(code);
    if (!c)
        c = diag_code_find(code);
    return !c || c->severity[0] == 'e';
}

const struct diag_code *diag_code_find(const char *code)
{
    const struct diag_code *t;
    for (size_t i = 0; (t = table_at(i)); i++)
        for (const struct diag_code *c = t; c->code; c++)
            if (strcmp(c->code, code) == 0)
                return c;
    return NULL;
}
