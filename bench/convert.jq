# The IACP -> FIPA mapping of acp-convert, in jq, for bench/convert-speed. Run with
#   jq -n -c -f bench/convert.jq < capture.jsonl
# It follows the ref chain for conversation_id in the state of `foreach`, but unlike
# acp-convert it never forgets (no --idle-timeout or --max-open: memory grows with the capture),
# and it does not report messages it cannot convert (a bad kind becomes an inform).
def act_and_protocol:
  .kind as $k
  | if $k == "task.assign" then ["request", "fipa-request"]
    elif $k == "task.accept" then ["agree", "fipa-request"]
    elif $k == "task.reject" then ["refuse", "fipa-request"]
    elif $k == "task.result" then
      [(if (.body.status? // null) == "ok" then "inform" else "failure" end), "fipa-request"]
    elif $k == "task.cancel" then ["cancel", "fipa-request"]
    elif $k == "tool.query" then ["query_ref", "fipa-query"]
    elif $k == "tool.reply" then ["inform", "fipa-query"]
    elif $k == "ctl.drain" or $k == "ctl.halt" then ["request", "fipa-request"]
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
     "x-iacp-kind": .kind}
    + (to_entries
       | map(select(.key | IN("kind", "id", "from", "to", "ref", "ts", "body") | not)
             | .key |= "x-iacp-" + .)
       | from_entries)
  | with_entries(select(.value != null));

foreach inputs as $m ({ids: {}};
    (if $m.ref then (.ids[$m.ref] // $m.ref) else $m.id end) as $c
    | .ids[$m.id] = $c
    | .current = $c;
  .current as $c | $m | to_fipa($c))
