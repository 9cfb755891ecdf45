/* The diagnostic codes of FIPA ACL, with their explanations: its part of the table --explain and
 * acp(7) give (diag/codes.c). Codes are stable: never rename one. */
#include "proto/dialect.h"

const struct diag_code fipa_codes[] = {
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
    {NULL, NULL, NULL, NULL},
};
