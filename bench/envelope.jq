# The IACP 1.1 envelope checks of `acp-validate --stateless --protocol=iacp`, in jq, for the
# benchmark: run as `jq -c -f bench/envelope.jq`. A valid message is written out; an invalid one
# becomes {"line":N,"errors":[...]} (jq cannot leave a bad line and go on, so the capture the
# benchmark uses is all valid JSON).
def kinds: ["task.assign","task.accept","task.reject","task.result","task.cancel","hb",
            "mem.sync","tool.query","tool.reply","ctl.drain","ctl.halt"];
def from_queen: ["task.assign","task.cancel","ctl.drain","ctl.halt"];
def to_queen: ["task.accept","task.reject","task.result"];
def needs_ref: ["task.accept","task.reject","task.result","task.cancel","tool.reply"];
def nonempty($k): if (.[$k] | type) == "string" and .[$k] != "" then empty
                  else "\($k) must be a non-empty string" end;
def checks:
  (if has("v") | not then "missing v"
   elif (.v | type) != "string" then "v must be a string"
   elif [.v] | inside(["1.1","1.0","2.0"]) | not then "unknown version"
   else empty end),
  nonempty("id"), nonempty("from"), nonempty("to"),
  (if (.kind | type) != "string" then "kind must be a string"
   elif ((.kind as $k | kinds | index([$k])) == null) and ((.kind | test("^[^.]+\\.[^.]")) | not)
   then "not a kind" else empty end),
  (if (.ts | type) != "number" then "ts must be a number"
   elif .ts < 0 then "ts is negative" else empty end),
  (if has("ref") and (.ref | type) != "string" then "ref must be a string"
   elif (has("ref") | not) and .v != "1.0" and (.kind as $k | needs_ref | index([$k])) != null
   then "missing ref" else empty end),
  (if (.kind as $k | from_queen | index([$k])) != null and (.from != "queen" or .to == "queen")
   then "direction" else empty end),
  (if (.kind as $k | to_queen | index([$k])) != null and (.from == "queen" or .to != "queen")
   then "direction" else empty end),
  (if has("body") and (.body | type) != "object" then "body must be an object" else empty end),
  (if .kind == "task.reject" and (.body.reason | type) != "string" then "reason" else empty end),
  (if .kind == "task.result" and (.body | has("partial")) and (.body.partial | type) != "boolean"
   then "partial" else empty end);
def warnings:
  (if .from == "queen" then (if .id | test("^q-[0-9a-fA-F]+$") then empty else "id style" end)
   else (if .id | test("^m-[0-9a-fA-F]{6}$") then empty else "id style" end) end),
  (if .kind == "mem.sync" and .v == "1.1" then "mem.sync on 1.1" else empty end),
  (if (.ts | type) == "number" and .ts > 100000000000 then "milliseconds" else empty end);
if type != "object" then {line: input_line_number, errors: ["not an object"]}
else [checks] as $errors
  | if ($errors | length) == 0 then ([warnings] | length) as $w | . else {line: input_line_number, errors: $errors} end
end
