# The normalisation under which acp-convert's round trips must give back their input: the
# performative in the canonical spelling (snake_case), a null member the same as an absent one,
# a single receiver (or reply_to) the same as a one-element set. jq compares numbers as numbers.
def canonical_act:
  gsub("(?<a>[a-z])(?<b>[A-Z])"; "\(.a)_\(.b)") | ascii_downcase | gsub("-"; "_");
def single: if type == "array" and length == 1 then .[0] else . end;
with_entries(select(.value != null))
| if has("performative") and (.performative | type) == "string"
  then .performative |= canonical_act else . end
| if has("receiver") then .receiver |= single else . end
| if has("reply_to") then .reply_to |= single else . end
