/* Every diagnostic code the tools can print, with its explanation: the source of --explain and of
 * the code list in acp(7) (a test keeps the two in step). Codes are stable: never rename one. */
#include <string.h>

#include "diag/diag.h"

static const struct diag_code codes[] = {
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
    {"no-protocol", "error", "the message is neither IACP nor FIPA",
     "With --protocol=auto a message with a 'kind' or 'v' member is IACP, otherwise one with a "
     "'performative' member is FIPA. A message with none of them cannot be checked."},

    /* IACP 1.1 per-message rules. */
    {"iacp-missing", "error", "a required IACP member is missing",
     "IACP 1.1 requires v, id, from, to, kind and ts in every message."},
    {"iacp-type", "error", "an IACP member has the wrong type or is empty",
     "v, id, from, to, kind and ref are strings (id, from and to not empty); ts is a number of "
     "unix seconds; body is an object."},
    {"iacp-version", "error", "the IACP version is not one this tool knows",
     "v must be \"1.1\"; \"1.0\" and \"2.0\" are accepted with a warning (iacp-version-legacy). "
     "Any other value is an error."},
    {"iacp-version-legacy", "warning", "an IACP 1.0 or 2.0 message",
     "IACP 1.0 had no ref (the ref rules do not apply to it); IACP/2 was only ever enabled on a "
     "test colony. Both are accepted with this warning."},
    {"iacp-ts", "error", "ts is negative",
     "ts is the sender's clock in unix seconds; a negative value is no time at all."},
    {"iacp-ts-fraction", "warning", "ts has a fractional part",
     "ts is whole unix seconds. A fraction suggests a sender that writes floating-point time."},
    {"iacp-ts-millis", "warning", "ts looks like milliseconds",
     "A ts above 10^11 is past the year 5138 in seconds and is almost certainly milliseconds. "
     "Message time reads it as milliseconds. Above 10^14 it is iacp-ts-range."},
    {"iacp-ts-range", "error", "ts is no time of this era",
     "A ts above 10^14 is no time of this era whether read as seconds or as milliseconds (10^14 "
     "ms is the year 5138): a broken clock or a corrupted number. The message is rejected, so "
     "it never moves message time."},
    {"iacp-kind", "error", "the kind is not an IACP kind",
     "kind must be one of the IACP 1.1 kinds (task.assign, task.accept, task.reject, "
     "task.result, task.cancel, hb, mem.sync, tool.query, tool.reply, ctl.drain, ctl.halt), a "
     "fipa.<act> kind as acp-convert writes, or at least a dotted name."},
    {"iacp-kind-unknown", "warning", "an unknown dotted kind",
     "A dotted kind that IACP 1.1 does not define. It may be a newer extension, so it is only "
     "a warning."},
    {"iacp-direction", "error", "a message goes the wrong way between queen and forager",
     "task.assign, task.cancel, ctl.drain and ctl.halt come from the queen to a forager; "
     "task.accept, task.reject and task.result go from a forager to the queen."},
    {"iacp-reserved-name", "error", "the reserved name 'queen' is used by another agent",
     "Only the queen may be called queen. With --queen=NAME the queen has another name, and an "
     "agent called 'queen' is then an impostor."},
    {"iacp-ref-missing", "error", "a task.result carries no ref",
     "The seed: results must carry ref, the id of the task.assign they answer (IACP 1.1; 1.0 "
     "had no ref). Without it nobody can tell which task the result is for. A missing ref on "
     "the other replies is iacp-no-ref."},
    {"iacp-no-ref", "warning", "a reply other than task.result carries no ref",
     "task.accept, task.reject, task.cancel and tool.reply answer a message, and name it by "
     "ref; the seed requires ref on results only. Without it the message cannot be paired with "
     "the message it answers: it passes, and the stream checks treat it as an orphan (no "
     "iacp-orphan is added). IACP 1.0 messages have no ref and are not checked."},
    {"iacp-reason", "error", "a task.reject has no string body.reason",
     "The seed document requires every reject to say why, in body.reason."},
    {"iacp-partial", "error", "body.partial is not a boolean",
     "On task.result, body.partial marks a partial result and must be true or false."},
    {"iacp-mem-sync", "warning", "mem.sync in an IACP 1.1 message",
     "mem.sync was added in IACP 2.0; a 1.1 agent may not understand it."},
    {"iacp-id-style", "warning", "the id does not follow the colony's convention",
     "Foragers use m- and 6 hex digits, the queen q- and hex digits. Ids are opaque, so this is "
     "never an error."},

    /* IACP stream: the pairing rules over a whole stream (acp-validate without --stateless). */
    {"iacp-duplicate-id", "error", "a sender used the same message id twice",
     "Ids are unique per sender: a reply names the message it answers by the id, so a reused "
     "id makes its replies ambiguous. The second message is not followed any further. Ids "
     "are remembered for --idle-timeout of message time, and at most --max-open of them (the "
     "least recently seen forgotten first), so a reuse further back goes unseen."},
    {"iacp-orphan", "warning", "a reply whose ref names no message seen",
     "A task.accept, task.reject, task.result, task.cancel or tool.reply whose ref names no "
     "earlier message sent by the agent the reply goes to. A capture can begin in the middle of "
     "a conversation, so this is a warning (an error with --strict). IACP 1.0 messages have no "
     "ref and are not checked."},
    {"iacp-ref-kind", "error", "a reply's ref names a message of the wrong kind",
     "Task replies answer a task.assign and a tool.reply answers a tool.query. A ref that names "
     "another kind of message (a heartbeat, a reply, the other kind of conversation) cannot be "
     "right."},
    {"iacp-wrong-replier", "error", "a reply comes from an agent the conversation did not go to",
     "Only the agent a task.assign or tool.query was sent to may answer it. The reply is not "
     "applied to the conversation."},
    {"iacp-reply-after-reject", "error", "a reply to an assign that was rejected",
     "A task.reject ends the assign: an accept, a result or another reject for it afterwards "
     "means the forager and the queen disagree on who holds the task."},
    {"iacp-result-after-final", "error", "a reply after the final result",
     "An assign has one final task.result (one without body.partial true) and a tool.query "
     "one tool.reply; any result after that was either computed twice or sent twice. A "
     "task.accept or task.reject after the final result is reported the same way: the "
     "forager lost track of the task."},
    {"iacp-accept-twice", "error", "a second task.accept for one assign",
     "A forager accepts an assign once. A second accept (while the assign is still open) is "
     "a forager that lost track of its tasks, or a message sent twice; related_line names "
     "the first accept."},
    {"iacp-reject-after-accept", "error", "a task.reject after the forager accepted the assign",
     "An accepted task ends with a task.result (status other than ok for a failure), not "
     "with a reject. The reject is applied: the assign ends as rejected. related_line names "
     "the accept."},
    {"iacp-slots", "error", "an assign beyond the forager's slots",
     "A forager holds at most one outstanding task.assign, or as many as its latest heartbeat "
     "advertises in body.slots (or --slots=AGENT=N allows). An assign is outstanding until its "
     "final task.result, its task.reject, or after a task.cancel the forager's final result."},
    {"iacp-reissue", "warning", "the queen reissued a node to another forager",
     "A task.assign for the same body.node as an outstanding assign, sent to a different "
     "forager at least --assign-timeout (default 300 s) after it: the seed's queen reissues "
     "an assign that has had no final result for its assign timeout. Both foragers may now "
     "run the node; see iacp-late-accept and iacp-duplicate-execution. Any other assign of a "
     "node that is still outstanding is iacp-reissue-unexpected."},
    {"iacp-reissue-unexpected", "error",
     "a node assigned again before the assign timeout, or to the same forager",
     "The seed's queen keeps an unanswered assign for assign_timeout and then reissues it to "
     "a different forager. A second assign of the same body.node while the first is "
     "outstanding, sent before --assign-timeout (default 300 s) of message time, or to the "
     "forager that holds the first, is no such reissue: a queen that lost track of its task "
     "graph. related_line names the outstanding assign; iacp-slots is reported too when the "
     "forager has no slot left."},
    {"iacp-late-accept", "warning", "a forager accepts an assign that was already reissued",
     "The first forager accepts after the queen gave its node to another one: unless the queen "
     "cancels one of them, the node will run twice."},
    {"iacp-duplicate-execution", "error", "a node ran twice after a reissue",
     "Two assigns of the same body.node that were outstanding together (a reissue) both got a "
     "final task.result: the work was done twice, the known duplicate-execution bug. The "
     "message names both assigns. A cancelled assign does not count."},
    {"iacp-skew", "warning", "a reply is stamped before the message it answers",
     "ts is the sender's clock. A reply stamped earlier than its task.assign or tool.query "
     "by more than --max-skew (default 2 s) shows the two clocks disagree by at least that "
     "much. When a sender's offset was learned (iacp-clock-skew), its ts is read with that "
     "offset."},
    {"iacp-clock-skew", "warning", "a sender's clock runs ahead of or behind the others'",
     "Message time, which every timeout counts, is the stream clock: it moves as the agents "
     "agree, never by one sender's clock alone (see STREAM CHECKS in acp(7)). A sender whose "
     "messages are off it by more than --clock-skew (default 30 s), steadily (three in a "
     "row, in the same direction, within --clock-skew of each other, while the others go on "
     "near the clock), is reported once with its offset; from then on its ts less that "
     "offset is its messages' time (for --max-skew, deadlines, drain and halt)."},
    {"iacp-silent", "warning", "an agent holding tasks fell silent",
     "An agent whose heartbeats were seen, holding outstanding assigns, sent nothing for "
     "three heartbeat periods (30 s of message time). Told once per silence, at the first "
     "message that moves message time past the limit or at the end of the input. Captures "
     "without heartbeats never trigger it."},
    {"iacp-open-at-end", "warning", "a conversation is still open at the end of the input",
     "A task.assign without a final result or reject, or a tool.query without its reply, when "
     "the input ended. Normal for a capture cut short; a sign of lost messages otherwise."},
    {"iacp-deadline-passed", "warning", "an open assign's deadline passed",
     "An assign without a final result whose body.deadline (unix seconds, by the queen's "
     "clock, less the offset learned for it) passed: told once, at the first message that "
     "moves message time past it (with --wall-clock, when the wall clock does on idle input), "
     "or at the end of the input. A final result that comes later is followed as any other; "
     "the warning stands. related_line names the assign."},
    {"iacp-assign-timeout", "warning", "an assign outlived the assign timeout, not reissued",
     "An assign of a body.node that has had no final result (nor task.reject) for "
     "--assign-timeout of message time (default 300 s) and --max-skew (2 s) more, and was "
     "neither reissued nor cancelled: the seed's queen reissues such an assign to a different "
     "forager, and this one did not. Told once, at the first message that moves message time "
     "past it (with --wall-clock, when the wall clock does on idle input), or not at all when "
     "the input ends first. A result, or a reissue (iacp-reissue), that comes later is "
     "followed as any other; the warning stands. related_line names the assign."},
    {"iacp-evicted", "warning", "a conversation was forgotten to bound memory",
     "An open conversation with no message for --idle-timeout of message time (default 3600 "
     "s), or the least recently active one when more than --max-open are open. Later messages "
     "of it are not checked."},
    {"iacp-assign-drained", "warning", "a task.assign to a forager that was drained",
     "ctl.drain tells a forager to finish its current task and accept nothing new; assigning "
     "it more work contradicts that (the forager should reject it). A drain lasts until the "
     "forager's first hb after more than one heartbeat period (10 s) of silence, or until it "
     "is forgotten after --idle-timeout. related_line names the ctl.drain."},
    {"iacp-accept-drained", "error", "a drained forager accepts new work",
     "A forager that was sent ctl.drain (finish the current task, accept nothing new) "
     "accepts an assign sent after the drain. Assigns sent before it may still be accepted. "
     "related_line names the ctl.drain."},
    {"iacp-after-halt", "error", "a halted forager goes on sending",
     "ctl.halt tells a forager to stop immediately. A message from it after the halt, other "
     "than a heartbeat, is reported; one stamped within --max-skew of the halt was on its "
     "way and is not. A halt lasts until the forager's first hb after more than one "
     "heartbeat period (10 s) of silence (it was restarted), or until it is forgotten after "
     "--idle-timeout. related_line names the ctl.halt."},

    /* FIPA ACL (Caxton JSON) per-message rules. */
    {"fipa-missing", "error", "a required FIPA member is missing",
     "Caxton requires performative, sender, receiver and content in every message ({} is a "
     "valid content). With --fipa-profile=standard (FIPA SC00061) only performative is "
     "required; a missing sender or receiver is then reported by the stream checks where a "
     "protocol needs it (fipa-cannot-follow)."},
    {"fipa-type", "error", "a FIPA member has the wrong type",
     "conversation_id, reply_with, in_reply_to (which may also be null), language, encoding, "
     "ontology and protocol are strings."},
    {"fipa-agent", "error", "sender, receiver or reply_to is not an agent identifier",
     "An agent is a non-empty string or an object with a non-empty string name and an optional "
     "array of string addresses; receiver and reply_to may also be a non-empty array of them."},
    {"fipa-performative", "error", "the performative is not a FIPA communicative act",
     "One of the 22 acts of SC00037 or Caxton's counter_propose, spelt accept_proposal, "
     "accept-proposal, ACCEPT_PROPOSAL or AcceptProposal."},
    {"fipa-time", "error", "reply_by or timestamp is not a date-time",
     "reply_by is an RFC 3339 date-time such as 2024-01-15T10:35:00Z; timestamp is one too, or "
     "a number of unix seconds."},
    {"fipa-time-range", "error", "a timestamp in unix seconds is beyond any plausible time",
     "A timestamp (or created_at) number above 10^14 is neither unix seconds nor milliseconds "
     "of this era (10^14 ms is the year 5138). Taken as message time it would make every "
     "conversation look idle, so the message is rejected and does not move message time."},
    {"fipa-time-millis", "warning", "a timestamp in unix seconds looks like milliseconds",
     "A timestamp (or created_at) number between 10^11 and 10^14 is past the year 5138 in "
     "seconds and is almost certainly milliseconds; message time reads it as milliseconds, as "
     "for IACP's ts (iacp-ts-millis)."},
    {"fipa-time-zone", "warning", "a date-time without a time zone",
     "A date-time without Z or an offset is read as UTC: a log read elsewhere has no "
     "trustworthy local zone."},
    {"fipa-no-in-reply-to", "warning", "a reply act without in_reply_to",
     "agree, refuse, failure, not-understood, accept-proposal and reject-proposal answer a "
     "message; without in_reply_to nobody can tell which."},
    {"fipa-no-reply-with", "warning", "a request or cfp without reply_with",
     "Replies name the message they answer by its reply_with; without one they cannot."},
    {"fipa-protocol-unknown", "warning", "an interaction protocol this tool does not know",
     "Known: fipa-request, fipa-query, fipa-request-when, fipa-contract-net, "
     "fipa-iterated-contract-net, fipa-propose, fipa-subscribe, fipa-brokering, "
     "fipa-recruiting, fipa-auction-english, fipa-auction-dutch (and the aliases "
     "fipa-english-auction, fipa-dutch-auction). Its rules cannot be checked, so the "
     "conversation is not followed. With the stream checks this is said once per conversation, "
     "at its first message; with --stateless once per message."},

    /* FIPA stream: interaction-protocol conformance across messages (the conversation engine). */
    {"fipa-unexpected-act", "error", "an act the interaction protocol does not allow here",
     "Every participant of a conversation walks the protocol's state machine on its own (for "
     "fipa-request: request, then refuse, or an optional agree followed by inform or failure). "
     "An act that the participant's state does not allow, from that participant or from the "
     "initiator, is an error; the message says which acts were expected and from whom, and "
     "related_line names the message that put the participant in its state."},
    {"fipa-after-end", "error", "a message in a conversation that already ended",
     "A conversation (or one participant's part of it) ends with refuse, failure, inform of the "
     "result, reject-proposal, not-understood, or the answer to a cancel. A later message in it "
     "is out of protocol: a late or replayed reply, or a sender that lost track. related_line "
     "names the message that ended it."},
    {"fipa-after-reject", "error", "a contract net goes on with a bidder it rejected",
     "In contract net a reject-proposal ends that bidder's part: an accept-proposal to it, or an "
     "inform from it (or to it), afterwards means the initiator and the bidder disagree on who "
     "holds the task, as IACP's iacp-reply-after-reject. Other messages after the end are "
     "fipa-after-end. related_line names the reject-proposal."},
    {"fipa-not-addressed", "error", "a reply from an agent the initiator never addressed",
     "Only an agent the initiator sent the conversation to may answer in it. A receiver written "
     "as broadcast://... addresses anyone; in recruiting the targets answer the initiator "
     "directly. related_line names the message that opened the conversation."},
    {"fipa-accept-no-proposal", "error", "accept-proposal to an agent that made no proposal",
     "In contract net and the auctions the initiator may only accept a proposal it received: "
     "an accept-proposal to a participant that refused, never answered the cfp, or was never "
     "asked accepts nothing. related_line names that participant's last message."},
    {"fipa-conversation-reused", "error", "a conversation_id is reused for a new protocol run",
     "A message that opens a protocol (request, cfp, subscribe, ...) without answering anything "
     "carries the conversation_id of a conversation that already ended, or of an open one that "
     "runs another protocol. Replies of the two runs cannot be told apart. The old run is "
     "dropped and the new one followed; related_line names the old run's first message."},
    {"fipa-late-proposal", "warning", "a proposal after the cfp's reply_by",
     "In contract net (and the auctions) the cfp's reply_by is the deadline for proposals; a "
     "propose whose timestamp (or created_at) is later than it, by more than --max-skew, should "
     "have been refused by the initiator. related_line names the cfp. Messages without a time "
     "are not checked."},
    {"fipa-late-reply", "warning", "a reply after the reply_by of the message it answers",
     "reply_by binds the first reply of each participant to any act that carries it (request, "
     "query-if, query-ref, subscribe, propose, ...), and the initiator's first answer to a "
     "participant's message that carries one. A reply whose timestamp (or created_at) is later "
     "than it by more than --max-skew is reported (a late proposal to a cfp as "
     "fipa-late-proposal). related_line names the message with the reply_by."},
    {"fipa-reply-by-passed", "warning", "a reply_by passed with no reply",
     "A reply_by that binds a reply (see fipa-late-reply) passed by more than --max-skew with "
     "no message of the other side: told once per reply_by, at the first message that moves "
     "message time past it (with --wall-clock, when the wall clock does on idle input), while "
     "the conversation is open and that participant's part of it has not ended. A reply that "
     "comes later is followed as any other and is fipa-late-reply; the warning stands. A "
     "broadcast's reply_by binds only the listeners already known. related_line names the "
     "message with the reply_by."},
    {"fipa-late-accept", "warning", "accept-proposal to a proposal that came after the reply_by",
     "A proposal that arrived after the cfp's reply_by should have been rejected; the initiator "
     "accepted it. related_line names that participant's proposal."},
    {"fipa-cfp-failure", "warning", "failure in answer to a cfp",
     "Contract net (SC00029) answers a cfp with propose or refuse; failure belongs after an "
     "accept-proposal. JADE tolerates it, so it is a warning, and ends that participant's part "
     "as failed. related_line names the cfp."},
    {"fipa-wrong-opening", "error",
     "a conversation opens with an act its protocol does not start with",
     "Each interaction protocol has its opening act (fipa-request: request; fipa-query: "
     "query-if or query-ref; fipa-contract-net: cfp; fipa-subscribe: subscribe; ...). A message "
     "that answers nothing, opens a new conversation and declares a protocol that does not "
     "start with its act breaks that protocol. The conversation is not followed; its later "
     "messages are not reported."},
    {"fipa-protocol-changed", "error",
     "a message names another protocol than its conversation runs",
     "A conversation runs one interaction protocol from its first message on; a later message "
     "of it whose protocol member names another one (or a contract net turned iterated: that "
     "counts as the same) is an error. The message is still followed by the conversation's own "
     "protocol. related_line names the conversation's first message."},
    {"fipa-reply-unknown", "error", "a reply names no message of its conversation",
     "in_reply_to names the reply_with of the message answered. In a conversation followed from "
     "its first message, an in_reply_to that names none of the messages seen in it so far "
     "points nowhere: a typo, or a reply meant for another conversation. An initiator waits for "
     "the answers to what it sent by their in_reply_to (JADE's protocol initiators match it, and "
     "leave any other message unread), so a participant's answer naming nothing moves nothing in "
     "the protocol: the conversation goes on as if it had not come, and is likely still open at "
     "the end, its initiator never answered. An error, since the agent that sent it believes it "
     "answered. A conversation met midway is not checked. related_line names the "
     "conversation's first message."},
    {"fipa-reply-orphan", "warning", "a reply in no conversation that answers nothing seen",
     "A message with in_reply_to and no conversation_id belongs to the conversation of the "
     "message it answers; when no message seen has that reply_with, it belongs to none. At the "
     "start of a capture that began midway the message it answers came before, which is why "
     "this is a warning; anywhere else it is a reply to nothing, that no agent takes."},
    {"fipa-cancel-crossed", "warning", "a final answer crossed a cancel that had no reply_with",
     "The participant's final answer names an earlier message, not the cancel: it was sent "
     "before the cancel arrived, an ordinary race on a real bus. When the cancel carries "
     "reply_with this is plain and not reported; without it the answer to the cancel cannot be "
     "told apart by in_reply_to, so the reading is reported. Either way the answer to the "
     "cancel is no longer due (it may still come). related_line names the cancel."},
    {"fipa-auction-second-accept", "error", "a second accept-proposal in one Dutch auction round",
     "In the Dutch auction (XC00032) the first bid accepted at a price wins the round; the "
     "later bids are to be rejected. A second accept-proposal in the same round sells the item "
     "twice. related_line names the winner's accepted bid."},
    {"fipa-cannot-follow", "warning", "a message lacks the sender or receiver its protocol needs",
     "With --fipa-profile=standard a message may lack sender and receiver (SC00061). In a "
     "conversation the stream checks follow, a message without sender, an initiator's message "
     "without receiver (or with an empty one), or a brokered reply without receiver cannot be "
     "placed: nobody can tell who acts or who is asked. The message is not followed."},
    {"fipa-open-at-end", "warning", "a conversation is still open at the end of input",
     "The input ended while a participant still owed an answer (or, in a subscription, while "
     "it was still subscribed). The diagnostic points at the conversation's first message and "
     "names its last one. A capture cut short shows this too; use --stateless to check single "
     "messages only."},
    {"fipa-evicted", "warning", "an open conversation was dropped to respect --max-open",
     "At most --max-open conversations are followed at once; when a new one opens, the one idle "
     "the longest is dropped and its later messages are no longer checked. related_line names "
     "its last message."},
    {"fipa-idle", "warning", "an open conversation expired after --idle-timeout",
     "A conversation with no message for longer than --idle-timeout of message time (default "
     "3600 s) is forgotten while a participant still owed an answer. Without any message time, "
     "a conversation expires after ten times --max-open messages pass without touching it. "
     "related_line names its last message."},
    {"fipa-clock-skew", "warning", "a sender's clock runs ahead of or behind the others'",
     "Message time, which --idle-timeout counts, is the stream clock: it moves as the agents "
     "agree, never by one sender's clock alone (see STREAM CHECKS in acp(7)). A sender whose "
     "timestamps are off it by more than --clock-skew (default 30 s), steadily (three in a row, "
     "in the same direction, within --clock-skew of each other, while the others go on near "
     "the clock), is reported once with its offset; from then on its timestamp (and any "
     "reply_by it sets) less that offset is its messages' time, for reply_by and --max-skew."},
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
     "acp-send reads what the peer writes as JSON Lines of IACP or FIPA messages. A line that "
     "is not one (not JSON, not an object, neither protocol, longer than --max-line-bytes, or "
     "cut short by the peer closing) is quoted in the diagnostic (its first 120 bytes, NULs and "
     "other control bytes escaped), located at the peer and the number of its line, and "
     "ignored: the conversation goes on."},

    /* Sending (acp-send): the reply it composes, and the conversations it follows (--wait). */
    {"send-answer", "error", "the reply to the message of --answer cannot be built",
     "With --answer the message is the reply to another one, so its protocol is that one's: a "
     "FIPA message is answered with a performative, an IACP one with a kind. A FIPA message "
     "that went to several receivers does not say which of them answers: give sender=NAME. The "
     "message is not sent."},
    {"send-failed", "error", "the conversation ended in a refusal, a rejection or a failure",
     "With --wait, the peer's final answer said no: refuse, failure, not_understood or "
     "reject_proposal (FIPA), task.reject or a task.result whose body.status is not \"ok\" "
     "(IACP), or every participant of a cfp refused. The diagnostic is at the message sent and "
     "quotes the answer; the exit status is 1."},
    {"send-timeout", "error", "no final answer came before the timeout",
     "With --wait, the conversation had not ended when --timeout ran out (by default the "
     "deadline the message states, its reply_by or body.deadline, when that is still to come, "
     "else 30 s). The diagnostic says what was still awaited; the exit status is 3."},

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
     "task.accept, or refuse instead of agree."},
    {"agent-differs", "error", "a live reply differs from the recorded one",
     "The live reply matched the recorded one by the message it answers and by its kind, but "
     "its sender, its receiver or a field listed with --compare (default body.status and "
     "content.status) differs. Ids and times are not compared: they differ by nature."},
    {"agent-extra", "error", "the live agent sent a reply the recording does not have",
     "The live agent answered a message it was sent (its ref or in_reply_to names it) more "
     "often, or otherwise, than the recording shows. Messages that answer nothing it was sent, "
     "such as heartbeats, are never extra. The diagnostic is at the message it answered."},
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

const struct diag_code *diag_codes(void)
{
    return codes;
}

/* The linker keeps one copy of each string literal, so a code emitted is, in practice, the very
 * literal of its table entry: looking it up by address first spares a stream of findings a
 * hundred string comparisons each. */
static const struct diag_code *code_at(const char *code)
{
    for (const struct diag_code *c = codes; c->code; c++)
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
    for (const struct diag_code *c = codes; c->code; c++)
        if (strcmp(c->code, code) == 0)
            return c;
    return NULL;
}
