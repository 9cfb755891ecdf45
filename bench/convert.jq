# The IACP -> FIPA mapping of acp-convert, in jq, for make bench (bench/run). Run with
#   jq -c -f bench/convert.jq < capture.jsonl
# Left out: the ref chain for conversation_id. Kept in the state of `foreach`, the map of ids
# is copied for every message (jq copies a value that is still referenced before changing it),
# which made the run quadratic: 1,000 messages/s at 100,000 messages. Here conversation_id is
# the sender of the message `.ref // .id` names and that id, which is the same for captures in
# which every reply names the opener (as in gen-colony's), not for longer chains; for the same
# reason a cancelled result stays a failure. It does not report messages it cannot convert
# either (a bad kind becomes an inform).
def act_and_protocol:
  .kind as $k
  | if $k == "task.assign" then ["request", "fipa-request"]
    elif $k == "task.accept" then ["agree", "fipa-request"]
    elif $k == "task.reject" then ["refuse", "fipa-request"]
    elif $k == "task.result" then
      [(if (.body.status? // null) == "ok" or .body.partial? == true then "inform"
        else "failure" end), "fipa-request"]
    elif $k == "task.cancel" then ["cancel", "fipa-request"]
    elif $k == "tool.query" then ["query_ref", "fipa-query"]
    elif $k == "tool.reply" then ["inform", "fipa-query"]
    elif $k == "ctl.drain" or $k == "ctl.halt" then ["inform", null]
    else ["inform", null] end;

def content:
  if .kind == "ctl.drain" or .kind == "ctl.halt" then
    {action: (.kind | ltrimstr("ctl."))} + (if (.body | type) == "object" then .body else {} end)
  else (.body // {}) end;

def is_seconds: type == "number" and . >= 0 and . == floor;

def to_fipa($conversation):
  act_and_protocol as [$act, $protocol]
  | {performative: $act, sender: .from, receiver: .to, content: content,
     reply_with: .id, in_reply_to: .ref, conversation_id: $conversation, protocol: $protocol,
     reply_by: (if .kind == "task.assign" and (.body.deadline? | is_seconds)
                then .body.deadline | todate else null end),
     timestamp: (if .ts | is_seconds then .ts | todate else null end),
     "x-iacp-kind": .kind,
     "x-acp-partial": (if .kind == "task.result" and .body.partial? == true then true
                       else null end)}
    + (to_entries
       | map(select(.key | IN("kind", "id", "from", "to", "ref", "ts", "body") | not)
             | .key |= "x-iacp-" + .)
       | from_entries)
  | with_entries(select(.value != null));

def qualified($agent; $id): ($agent // "" | gsub("%"; "%25") | gsub("/"; "%2F")) + "/" + $id;

to_fipa(if .ref == null then qualified(.from; .id)
        elif .kind == "task.cancel" then qualified(.from; .ref)
        else qualified(.to; .ref) end)
