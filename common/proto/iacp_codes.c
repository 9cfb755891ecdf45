/* The diagnostic codes of IACP 1.1, with their explanations: its part of the table --explain and
 * acp(7) give (diag/codes.c). Codes are stable: never rename one. */
#include "proto/dialect.h"

const struct diag_code iacp_codes[] = {
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

    {NULL, NULL, NULL, NULL},
};
