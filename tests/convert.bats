load test_helper

# The IACP 1.1 exchange of the seed document, plus a drain.
seed_exchange() {
    lines_file \
        '{"v":"1.1","id":"q-00a1","from":"queen","to":"forager-07","kind":"task.assign","ts":1312284100,"body":{"node":"tg:crawl-index/3","deadline":1312284400}}' \
        '{"v":"1.1","id":"m-4f91c2","from":"forager-07","to":"queen","kind":"task.accept","ref":"q-00a1","ts":1312284101}' \
        '{"v":"1.1","id":"m-4f91c3","from":"forager-07","to":"queen","kind":"task.result","ref":"q-00a1","ts":1312284180,"body":{"status":"ok","artifacts":["cm://index/3"]}}'
}

# The message of the FIPA digest, verbatim as JADE prints it.
jade_example() {
    local f=$BATS_TEST_TMPDIR/jade.acl
    cat >"$f" <<'EOF'
(REQUEST
 :sender  ( agent-identifier :name alice@host:1099/JADE  :addresses (sequence http://host:7778/acc ))
 :receiver  (set ( agent-identifier :name bob@host:1099/JADE ) )
 :content  "((action (agent-identifier :name bob) (say \"hi\")))" 
 :reply-with  "req 1"  :language  fipa-sl  :ontology  demo-onto  :reply-by  20000101T120000000Z
 :protocol  fipa-request
 :conversation-id  conv-1 :X-priority high )
EOF
    printf '%s' "$f"
}

# One IACP message of the given kind (and optional extra members) converted to FIPA.
iacp_to_fipa() {
    local kind=$1 extra=${2:-}
    local f
    f=$(lines_file "{\"v\":\"1.1\",\"id\":\"q-0001\",\"from\":\"queen\",\"to\":\"forager-07\",\"kind\":\"$kind\",\"ts\":1312284100$extra}")
    acp-convert --to=fipa "$f"
}

@test "convert: --to is required, and formats are checked" {
    run -2 acp-convert </dev/null
    assert_output --partial "--to=FORMAT is required"
    run -2 acp-convert --to=xml </dev/null
    assert_output --partial "--to must be iacp, fipa, fipa-acl, jsonrpc or tap"
    run -2 acp-convert --from=jade --to=fipa </dev/null
    run -2 acp-convert --to=fipa --spelling=camel </dev/null
}

@test "convert: every IACP kind maps to its FIPA act and protocol" {
    local row kind act protocol
    for row in task.assign:request:fipa-request task.accept:agree:fipa-request \
        task.reject:refuse:fipa-request task.cancel:cancel:fipa-request \
        tool.query:query_ref:fipa-query tool.reply:inform:fipa-query hb:inform:null \
        mem.sync:inform:null ctl.drain:inform:null ctl.halt:inform:null; do
        IFS=: read -r kind act protocol <<<"$row"
        run -0 iacp_to_fipa "$kind"
        run -0 jq -r '[.performative, (.protocol // "null"), ."x-iacp-kind"] | join(" ")' <<<"$output"
        assert_output "$act $protocol $kind"
    done
}

@test "convert: task.result is inform when body.status is ok (partial or final), else failure" {
    run -0 iacp_to_fipa task.result ',"body":{"status":"ok"}'
    assert_output --partial '"performative":"inform"'
    run -0 iacp_to_fipa task.result ',"body":{"status":"ok","partial":true}'
    assert_output --partial '"performative":"inform"'
    run -0 iacp_to_fipa task.result ',"body":{"status":"error"}'
    assert_output --partial '"performative":"failure"'
    run -0 iacp_to_fipa task.result
    assert_output --partial '"performative":"failure"'
}

@test "convert: ctl.drain and ctl.halt inform of an action, with the body beside it" {
    run -0 iacp_to_fipa ctl.drain
    assert_output --partial '"content":{"action":"drain"}'
    run -0 iacp_to_fipa ctl.halt ',"body":{"grace":5}'
    assert_output --partial '"content":{"action":"halt","grace":5}'
}

@test "convert: envelope members map to FIPA members; ts becomes RFC 3339 UTC" {
    run -0 acp-convert --to=fipa "$(seed_exchange)"
    assert_line --index 0 '{"performative":"request","x-iacp-v":"1.1","reply_with":"q-00a1","sender":"queen","receiver":"forager-07","x-iacp-kind":"task.assign","timestamp":"2011-08-02T11:21:40Z","content":{"node":"tg:crawl-index/3","deadline":1312284400},"conversation_id":"queen/q-00a1","protocol":"fipa-request","reply_by":"2011-08-02T11:26:40Z"}'
    assert_line --index 1 '{"performative":"agree","x-iacp-v":"1.1","reply_with":"m-4f91c2","sender":"forager-07","receiver":"queen","x-iacp-kind":"task.accept","in_reply_to":"q-00a1","timestamp":"2011-08-02T11:21:41Z","content":{},"conversation_id":"queen/q-00a1","protocol":"fipa-request"}'
}

@test "convert: a message without body gets content {} and the way back drops it" {
    run -0 iacp_to_fipa hb
    assert_output --partial '"content":{}'
    run -0 bash -c "acp-convert --to=fipa '$(seed_exchange)' | acp-convert --to=iacp"
    assert_line --index 1 '{"v":"1.1","id":"m-4f91c2","from":"forager-07","to":"queen","kind":"task.accept","ref":"q-00a1","ts":1312284101}'
}

@test "convert: other IACP members travel as x-iacp-<name>" {
    run -0 iacp_to_fipa hb ',"trace":{"span":7},"ts2":1'
    assert_output --partial '"x-iacp-trace":{"span":7},"x-iacp-ts2":1'
}

@test "convert: strings come out as they went in: non-ASCII raw; controls and DEL escaped, nothing after them" {
    # DEL before a plain character once made the writer escape that character (\u0062); DEL
    # itself is escaped, as in all the JSON the tools write (acp(7))
    run -0 iacp_to_fipa hb $',"body":{"s":"a\x7fb\\u0001c \xc3\xa9\xf0\x9f\x98\x80 \\"q\\\\"}'
    assert_output --partial $'"content":{"s":"a\\u007Fb\\u0001c \xc3\xa9\xf0\x9f\x98\x80 \\"q\\\\"}'
}

@test "convert: conversation_id is the sender and id that opened the conversation, along the ref chain" {
    local f
    f=$(lines_file \
        '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"tool.query","ts":100}' \
        '{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"tool.reply","ref":"q-1","ts":101}' \
        '{"v":"1.1","id":"q-2","from":"queen","to":"f","kind":"tool.query","ref":"m-1","ts":102}' \
        '{"v":"1.1","id":"m-2","from":"f","to":"queen","kind":"tool.reply","ref":"q-2","ts":103}')
    run -0 bash -c "acp-convert --to=fipa '$f' | jq -r .conversation_id"
    assert_output "$(printf 'queen/q-1\nqueen/q-1\nqueen/q-1\nqueen/q-1')"
}

@test "convert: FIPA cut in the middle of a conversation keeps its conversation_id both ways" {
    local f
    f=$(lines_file '{"performative":"cancel","sender":"queen","receiver":"f","content":{},"reply_with":"m2","in_reply_to":"m1","conversation_id":"q1","protocol":"fipa-request","timestamp":"2024-01-15T10:00:00Z","x-iacp-kind":"task.cancel","x-iacp-v":"1.1"}' \
        '{"performative":"inform","sender":"f","receiver":"queen","content":{},"reply_with":"m3","in_reply_to":"m2","conversation_id":"q1","timestamp":"2024-01-15T10:00:01Z","x-iacp-kind":"hb","x-iacp-v":"1.1"}')
    run -0 acp-convert --to=iacp "$f"
    assert_line --index 0 '{"from":"queen","to":"f","id":"m2","ref":"m1","ts":1705312800,"kind":"task.cancel","v":"1.1","x-fipa-conversation_id":"q1"}'
    assert_line --index 1 '{"from":"f","to":"queen","id":"m3","ref":"m2","ts":1705312801,"kind":"hb","v":"1.1"}'
    # what the mapping adds (content {} for no body, conversation_id, protocol) comes last
    run -0 bash -c "acp-convert --to=iacp '$f' | acp-convert --to=fipa | jq -S -c ."
    assert_output "$(jq -S -c . "$f")"
}

@test "convert: conversation state is bounded by --max-open and --idle-timeout" {
    local f
    f=$(lines_file \
        '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"tool.query","ts":100}' \
        '{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"tool.reply","ref":"q-1","ts":101}' \
        '{"v":"1.1","id":"q-2","from":"queen","to":"f","kind":"tool.query","ref":"m-1","ts":101}' \
        '{"v":"1.1","id":"x-1","from":"queen","to":"g","kind":"hb","ts":102}' \
        '{"v":"1.1","id":"x-2","from":"queen","to":"g","kind":"hb","ts":103}' \
        '{"v":"1.1","id":"x-3","from":"queen","to":"g","kind":"hb","ts":104}' \
        '{"v":"1.1","id":"m-2","from":"f","to":"queen","kind":"tool.reply","ref":"q-2","ts":105}')
    run -0 bash -c "acp-convert --to=fipa '$f' | jq -r .conversation_id | tail -1"
    assert_output "queen/q-1"
    # Forgotten: the best the stream can say is the message answered.
    run -0 bash -c "acp-convert --to=fipa --max-open=2 '$f' | jq -r .conversation_id | tail -1"
    assert_output "queen/q-2"
    run -0 bash -c "acp-convert --to=fipa --idle-timeout=3 '$f' | jq -r .conversation_id | tail -1"
    assert_output "queen/q-2"
}

@test "convert: at --max-open, the least recently used conversation is forgotten first, and only it" {
    local f
    f=$(lines_file \
        '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"tool.query","ts":101}' \
        '{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"tool.reply","ref":"q-1","ts":102}' \
        '{"v":"1.1","id":"x-1","from":"queen","to":"g","kind":"hb","ts":103}' \
        '{"v":"1.1","id":"x-2","from":"queen","to":"g","kind":"hb","ts":104}' \
        '{"v":"1.1","id":"x-3","from":"queen","to":"g","kind":"hb","ts":105}' \
        '{"v":"1.1","id":"q-2","from":"queen","to":"f","kind":"tool.query","ref":"m-1","ts":106}')
    # five remembered, one too many: q-1 goes, m-1 (as old, but used after it) stays
    run -0 bash -c "acp-convert --to=fipa --max-open=4 '$f' | jq -r .conversation_id | tail -1"
    assert_output "queen/q-1"
    run -0 bash -c "acp-convert --to=fipa --max-open=3 '$f' | jq -r .conversation_id | tail -1"
    assert_output "f/m-1"
}

@test "convert: one far-future ts does not make acp-convert forget its conversations" {
    local f far
    for far in 4102444800 99999999999999; do
        f=$(lines_file \
            '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"tool.query","ts":100}' \
            '{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"tool.reply","ref":"q-1","ts":101}' \
            '{"v":"1.1","id":"q-2","from":"queen","to":"f","kind":"tool.query","ref":"m-1","ts":102}' \
            '{"v":"1.1","id":"x-1","from":"g","to":"queen","kind":"hb","ts":'"$far"'}' \
            '{"v":"1.1","id":"m-2","from":"f","to":"queen","kind":"tool.reply","ref":"q-2","ts":103}')
        run -0 bash -c "acp-convert --to=fipa '$f' | jq -r .conversation_id | tail -1"
        assert_output "queen/q-1"
        # and the way back still finds it (no x-fipa-conversation_id): the round trip is exact
        run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp | jq -S -c ."
        assert_output "$(jq -S -c . "$f")"
    done
    # the cancel of an assign is remembered too: the cancelled result answers it
    f=$(lines_file \
        '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"task.assign","ts":100,"body":{"node":"n"}}' \
        '{"v":"1.1","id":"m-1","from":"f","to":"queen","kind":"task.accept","ref":"q-1","ts":101}' \
        '{"v":"1.1","id":"x-1","from":"g","to":"queen","kind":"hb","ts":4102444800}' \
        '{"v":"1.1","id":"q-2","from":"queen","to":"f","kind":"task.cancel","ref":"q-1","ts":102}' \
        '{"v":"1.1","id":"m-2","from":"f","to":"queen","kind":"task.result","ref":"q-1","ts":103,"body":{"status":"cancelled"}}')
    run -0 bash -c "acp-convert --to=fipa '$f' | jq -r '[.performative, .in_reply_to, .conversation_id] | join(\" \")' | tail -1"
    assert_output "inform q-2 queen/q-1"
    # and so are the ids a sender used: a reply_with used again gets a fresh IACP id
    f=$(lines_file \
        '{"performative":"inform","sender":"alice","receiver":"bob","content":{},"reply_with":"m-0000a1","timestamp":"2024-01-15T10:00:00Z"}' \
        '{"performative":"inform","sender":"carol","receiver":"bob","content":{},"reply_with":"m-0000c1","timestamp":"2100-01-15T10:00:00Z"}' \
        '{"performative":"inform","sender":"alice","receiver":"bob","content":{},"reply_with":"m-0000a1","timestamp":"2024-01-15T10:00:01Z"}')
    run -0 --separate-stderr bash -c "acp-convert --to=iacp '$f' | acp-validate >/dev/null"
    assert_equal "$stderr" ""
}

@test "convert: an assign's deadline stays in the content and is also reply_by" {
    run -0 iacp_to_fipa task.assign ',"body":{"deadline":1312284400}'
    assert_output --partial '"content":{"deadline":1312284400}'
    assert_output --partial '"reply_by":"2011-08-02T11:26:40Z"'
}

@test "convert: FIPA that came from IACP maps back exactly" {
    run -0 bash -c "acp-convert --to=fipa '$(seed_exchange)' | acp-convert --to=iacp"
    assert_output "$(cat "$(seed_exchange)")"
}

@test "convert: other FIPA becomes fipa.<act> with x-fipa-* members; never a task kind" {
    local f
    f=$(lines_file '{"performative":"CFP","sender":"tm","receiver":"c1","content":{"task":"t"},"reply_with":"cfp_001","in_reply_to":"x","conversation_id":"auction_001","reply_by":"2024-01-15T12:00:00Z","timestamp":"2024-01-15T10:00:00Z"}')
    run -0 acp-convert --to=iacp "$f"
    assert_output '{"v":"1.1","kind":"fipa.cfp","from":"tm","to":"c1","body":{"task":"t"},"id":"cfp_001","ref":"x","x-fipa-conversation_id":"auction_001","x-fipa-reply_by":"2024-01-15T12:00:00Z","ts":1705312800}'
    run -0 bash -c "acp-convert --to=iacp '$f' | acp-validate --stateless"
}

@test "convert: a fipa.<act> message keeps its other IACP members and its v both ways" {
    local f
    f=$(lines_file '{"v":"2.0","id":"q-1","from":"queen","to":"f-1","kind":"fipa.cfp","ts":1312284100,"body":{"a":1},"trace":"t1"}')
    # kind and performative share a place: it comes back second, after v
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output '{"v":"2.0","kind":"fipa.cfp","id":"q-1","from":"queen","to":"f-1","ts":1312284100,"body":{"a":1},"trace":"t1"}'
    f=$(lines_file '{"performative":"cfp","sender":"a","receiver":"b","content":{},"reply_with":"r","timestamp":"2024-01-15T10:00:00Z","x-iacp-trace":"t1","x-iacp-v":"1.1","x-iacp-ts":1}')
    run -0 bash -c "acp-convert --to=iacp '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

@test "convert: a fipa.<act> message without body, with another body or ts, comes back" {
    local f
    f=$(lines_file '{"v":"1.1","id":"q-1","from":"a","to":"b","kind":"fipa.cfp","ts":1312284100}' \
        '{"v":"1.1","id":"q-2","from":"a","to":"b","kind":"fipa.cfp","ts":1312284100.5}')
    # kind and performative share a place: it comes back after v
    local back
    back=$(printf '%s\n' '{"v":"1.1","kind":"fipa.cfp","id":"q-1","from":"a","to":"b","ts":1312284100}' \
        '{"v":"1.1","kind":"fipa.cfp","id":"q-2","from":"a","to":"b","ts":1312284100.5}')
    run -0 bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output "$back"
    run -0 bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=iacp"
    assert_output "$back"
    # a body that is not an object is no IACP: FIPA carries it, but it cannot be written back
    f=$(lines_file '{"v":"1.1","id":"q-2","from":"a","to":"b","kind":"fipa.cfp","ts":1312284100.5,"body":"text"}' \
        '{"v":"1.1","id":"q-3","from":"a","to":"b","kind":"fipa.cfp","ts":1312284100,"body":[1]}')
    run -0 acp-convert --to=fipa "$f"
    assert_line --index 0 --partial '"content":"text","x-iacp-body":"text"'
    run -1 --separate-stderr bash -c "acp-convert --to=fipa '$f' | acp-convert --to=iacp"
    assert_output ''
    [[ $stderr == *"<stdin>:1: error: converted to IACP, the message breaks its rules (iacp-type); it is not written [convert-output-invalid]"* ]]
    [[ $stderr == *"<stdin>:2: error:"*"[convert-output-invalid]"* ]]
    f=$(lines_file '{"performative":"cfp","sender":"a","receiver":"b","content":{},"reply_with":"r","x-iacp-body":null,"x-iacp-ts":5}' \
        '{"performative":"cfp","sender":"a","receiver":"b","content":5,"reply_with":"s","x-iacp-ts":1.5,"x-iacp-body":6}')
    run -0 bash -c "acp-convert --to=iacp '$f' | acp-convert --to=fipa | jq -S -c ."
    assert_output "$(jq -S -c . "$f")"
    # crafted x-iacp- members that would give an IACP message a string ts are an error
    f=$(lines_file '{"performative":"cfp","sender":"a","receiver":"b","content":5,"reply_with":"s","x-iacp-ts":"x"}')
    run -1 --separate-stderr acp-convert --to=iacp "$f"
    assert_output ''
    [[ $stderr == *":1: error: converted to IACP, the message breaks its rules (iacp-type); it is not written [convert-output-invalid]"* ]]
}

@test "convert: a timestamp with a fraction comes back without an x-iacp-ts" {
    local f
    f=$(lines_file '{"performative":"inform","sender":"a","receiver":"b","content":{},"timestamp":"2024-01-15T10:00:00.5Z"}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":{},"timestamp":1705312800.25}')
    run -0 bash -c "acp-convert --to=iacp '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

@test "convert: receiver sets, addressed agents and non-object content travel in x-fipa-*" {
    local f
    f=$(lines_file '{"performative":"inform","sender":{"name":"a","addresses":["http://h/acc"]},"receiver":["b","c"],"content":"text","reply_with":"r"}')
    run -0 acp-convert --to=iacp --now=0 "$f"
    run -0 jq -c '[.from, .to, ."x-fipa-sender", ."x-fipa-receiver", ."x-fipa-content"]' <<<"$output"
    assert_output '["a","b",{"name":"a","addresses":["http://h/acc"]},["b","c"],"text"]'
}

@test "convert: a missing reply_with gets a fresh id and a missing timestamp the time; --seed/--now reproduce" {
    local f
    f=$(lines_file '{"performative":"inform","sender":"a","receiver":"b","content":{}}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":{}}')
    run -0 acp-convert --to=iacp --seed=42 --now=2024-01-15T10:00:00Z "$f"
    local first=$output
    assert_line --index 0 --regexp '"ts":1705312800,"id":"m-[0-9a-f]{6}","x-fipa-absent":\["reply_with","timestamp"\]'
    [ "$(jq -r .id <<<"${lines[0]}")" != "$(jq -r .id <<<"${lines[1]}")" ]
    run -0 acp-convert --to=iacp --seed=42 --now=2024-01-15T10:00:00Z "$f"
    assert_output "$first"
    run -0 acp-convert --to=iacp --seed=43 --now=2024-01-15T10:00:00Z "$f"
    [ "$output" != "$first" ]
    # and the way back leaves them out again
    run -0 bash -c "acp-convert --to=iacp --seed=1 '$f' | acp-convert --to=fipa | head -1"
    assert_output '{"performative":"inform","sender":"a","receiver":"b","content":{}}'
}

@test "convert: --spelling chooses the performative's spelling" {
    local f
    f=$(lines_file '{"performative":"AcceptProposal","sender":"a","receiver":"b","content":{}}')
    run -0 acp-convert --to=fipa "$f"
    assert_output --partial '"performative":"accept_proposal"'
    run -0 acp-convert --to=fipa --spelling=kebab "$f"
    assert_output --partial '"performative":"accept-proposal"'
    run -0 acp-convert --to=fipa --spelling=upper "$f"
    assert_output --partial '"performative":"ACCEPT_PROPOSAL"'
    run -0 acp-convert --to=fipa-acl "$f"
    assert_line --index 0 '(accept-proposal'
    run -0 acp-convert --to=fipa-acl --spelling=upper "$f"
    assert_line --index 0 '(ACCEPT-PROPOSAL'
}

@test "convert: a message that cannot be converted is reported with its line and skipped" {
    local f
    f=$(lines_file '{"v":"1.1","id":"a","from":"q","to":"f","kind":"hb","ts":1}' \
        '{"v":"1.1","id":"b","from":"q","to":"f","kind":"nokind","ts":1}' \
        '{"performative":"shout","sender":"a","receiver":"b","content":{}}' \
        '{"hello":1}' 'not json')
    run -1 --separate-stderr acp-convert --to=fipa --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_equal "${#lines[@]}" 1
    [[ $stderr == *":2: error: 'nokind' is not an IACP kind"*"[convert-iacp]"* ]]
    [[ $stderr == *":3: error: 'shout' is not a FIPA act"*"[convert-fipa]"* ]]
    [[ $stderr == *":4: error:"*"[no-protocol]"* ]]
    [[ $stderr == *":5:3: error:"*"[bad-json]"* ]]
    run -0 cat "$BATS_TEST_TMPDIR/rej"
    assert_equal "${#lines[@]}" 4
    assert_line --index 0 --partial '"nokind"'
}

@test "convert: an unknown dotted kind becomes inform with a warning, and comes back" {
    run -0 --separate-stderr iacp_to_fipa x.custom
    assert_output --partial '"performative":"inform"'
    [[ $stderr == *"[convert-kind-unknown]"* ]]
}

@test "acl: the JADE example of the reference parses" {
    run -0 acp-convert --to=fipa "$(jade_example)"
    assert_output '{"performative":"request","sender":{"name":"alice@host:1099/JADE","addresses":["http://host:7778/acc"]},"receiver":"bob@host:1099/JADE","content":"((action (agent-identifier :name bob) (say \"hi\")))","reply_with":"req 1","language":"fipa-sl","ontology":"demo-onto","reply_by":"2000-01-01T12:00:00Z","protocol":"fipa-request","conversation_id":"conv-1","X-priority":"high"}'
}

@test "acl: what we write from the JADE example reads back the same" {
    run -0 bash -c "acp-convert --to=fipa-acl '$(jade_example)' | tee '$BATS_TEST_TMPDIR/w.acl' | acp-convert --to=fipa"
    assert_output "$(acp-convert --to=fipa "$(jade_example)")"
    run -0 cat "$BATS_TEST_TMPDIR/w.acl"
    assert_line --index 1 ' :sender (agent-identifier :name alice@host:1099/JADE :addresses (sequence http://host:7778/acc))'
    assert_line --index 2 ' :receiver (set (agent-identifier :name bob@host:1099/JADE))'
    assert_line --index 4 ' :reply-with "req 1"'
}

@test "acl: messages span lines and follow each other; keywords in any case" {
    local f=$BATS_TEST_TMPDIR/multi.acl
    printf '%s\n' '(inform :sender (agent-identifier :name a) :content "one")(AGREE :SENDER' \
        '   (AGENT-IDENTIFIER :NAME b)' ' :Content "two")' '' '  (Query-Ref :receiver (SET (agent-identifier :name c) (agent-identifier :name d)))' >"$f"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=fipa "$f"
    assert_line --index 0 '{"performative":"inform","sender":"a","content":"one"}'
    assert_line --index 1 '{"performative":"agree","sender":"b","content":"two"}'
    assert_line --index 2 '{"performative":"query_ref","receiver":["c","d"]}'
}

@test "acl: a record's line is where it starts" {
    local f=$BATS_TEST_TMPDIR/lines.acl
    printf '%s\n' '' '(inform' ' :sender (agent-identifier :name a))' '' '(bogus' ' :content "x")' >"$f"
    run -1 --separate-stderr acp-convert --to=fipa "$f"
    [[ $stderr == *"lines.acl:5:2: error: 'bogus' is not a FIPA communicative act [acl-performative]"* ]]
}

@test "acl: an agent object that holds only its name comes back as an object" {
    local f
    f=$(lines_file '{"performative":"inform","sender":{"name":"a"},"receiver":["b",{"name":"c"}]}')
    run -0 --separate-stderr acp-convert --to=fipa-acl "$f"
    assert_line --index 1 ' :sender (agent-identifier :name a :X-acp-object true)'
    assert_line --index 2 ' :receiver (set (agent-identifier :name b) (agent-identifier :name c :X-acp-object true)))'
    run -0 --separate-stderr bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

@test "acl: byte-length strings carry any bytes" {
    local f=$BATS_TEST_TMPDIR/bytes.acl
    printf '(inform :content #7"a)b\\"(\n :reply-with #0" :X-n #2"é)\n' >"$f"
    run -0 --separate-stderr acp-convert --to=fipa "$f"
    assert_output '{"performative":"inform","content":"a)b\\\"(\n","reply_with":"","X-n":"é"}'
}

@test "acl: date-times with Z are UTC; without Z they are read as UTC with a warning; relative ones count from --now" {
    local f=$BATS_TEST_TMPDIR/dt.acl
    printf '%s\n' '(inform :reply-by 20240115T103500000Z)' '(inform :reply-by 20240115T103500250)' '(inform :reply-by +00000000T000100000)' >"$f"
    run -0 --separate-stderr acp-convert --to=fipa --now=2024-01-15T10:00:00Z "$f"
    assert_line --index 0 '{"performative":"inform","reply_by":"2024-01-15T10:35:00Z"}'
    assert_line --index 1 '{"performative":"inform","reply_by":"2024-01-15T10:35:00.250Z","x-acp-reply-by":"20240115T103500250"}'
    assert_line --index 2 '{"performative":"inform","reply_by":"2024-01-15T10:01:00Z","x-acp-reply-by":"+00000000T000100000"}'
    [[ $stderr == *"dt.acl:2:19: warning: date-time '20240115T103500250' has no Z; read as UTC [acl-time-zone]"* ]]
}

@test "acl: reply_by comes back as it was spelled, and JADE gets it in UTC" {
    local f
    f=$(lines_file '{"performative":"cfp","reply_by":"2024-01-15T12:35:00+02:00"}' \
        '{"performative":"cfp","reply_by":"2024-01-15T10:35:00.5Z"}' \
        '{"performative":"cfp","reply_by":"2024-01-15T10:35:00.250Z"}')
    run -0 --separate-stderr acp-convert --to=fipa-acl "$f"
    assert_line --index 1 ' :reply-by 20240115T103500000Z :X-acp-reply_by "2024-01-15T12:35:00+02:00")'
    assert_line --index 5 ' :reply-by 20240115T103500250Z)'
    run -0 --separate-stderr bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

@test "acl: JSON content is written as a string with :language json and read back as JSON" {
    local f
    f=$(lines_file '{"performative":"inform","sender":"a","receiver":"b","content":{"k":[1,"x"]}}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":{"k":1},"language":"fipa-sl"}' \
        '{"performative":"inform","sender":"a","receiver":"b","content":"42","language":"json"}')
    run -0 acp-convert --to=fipa-acl "$f"
    assert_line --index 3 ' :content "{\"k\":[1,\"x\"]}"'
    assert_line --index 4 ' :language json :X-acp-language none)'
    assert_output --partial ':X-acp-json-content true'
    run -0 --separate-stderr bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

@test "acl: JSON content is read as JSON when the language is json" {
    local f=$BATS_TEST_TMPDIR/json.acl
    printf '%s\n' '(inform :content "{\"a\":1}" :language JSON)' '(inform :content "{\"a\":1}")' '(inform :content "{oops" :language json)' >"$f"
    run -0 --separate-stderr acp-convert --to=fipa "$f"
    assert_line --index 0 '{"performative":"inform","content":{"a":1},"language":"JSON"}'
    assert_line --index 1 '{"performative":"inform","content":"{\"a\":1}"}'
    assert_line --index 2 '{"performative":"inform","content":"{oops","language":"json","x-acp-content-text":true}'
    [[ $stderr == *"[acl-json]"* ]]
}

@test "acl: the writing rule for awkward text" {
    local f
    f=$(lines_file '{"performative":"inform","content":"say \"hi\"\nand (go)","reply_with":"ends\\"}' \
        '{"performative":"inform","content":"a \\\" b","ontology":"café 日本","conversation_id":"plain-word"}')
    run -0 --separate-stderr acp-convert --to=fipa-acl "$f"
    # quotes: a literal with \" ; newline raw inside it
    assert_line --index 1 ' :content "say \"hi\"'
    assert_line --index 2 'and (go)"'
    # a trailing backslash: a byte-length string
    assert_line --index 3 ' :reply-with #5"ends\)'
    # a backslash before a quote: a byte-length string; non-ASCII: a literal; a word: bare
    assert_line --index 5 ' :content #6"a \" b'
    assert_line --index 6 ' :ontology "café 日本"'
    assert_line --index 7 ' :conversation-id plain-word)'
    run -0 --separate-stderr bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

@test "acl: JSON text in a byte-length string is ASCII, so that JADE counts the same" {
    local f
    f=$(lines_file '{"performative":"inform","content":{"m":"café \"x\""}}' \
        '{"performative":"inform","content":{"m":"café"}}')
    run -0 --separate-stderr acp-convert --to=fipa-acl "$f"
    assert_line --index 1 ' :content #23"{"m":"caf\u00E9 \"x\""}'
    assert_line --index 4 ' :content "{\"m\":\"café\"}"'
    # The way back keeps the content's text, so the escape stays: the same JSON value.
    run -0 --separate-stderr bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=fipa"
    assert_line --index 0 '{"performative":"inform","content":{"m":"caf\u00E9 \"x\""}}'
    assert_equal "$(jq -S -c . <<<"$output")" "$(jq -S -c . "$f")"
}

@test "acl: a syntax error names line and column; the broken message, and only it, is skipped" {
    local f=$BATS_TEST_TMPDIR/bad.acl
    printf '%s\n' '(inform :content "ok1")' '(inform :sender' '  (agent-identifier :name a)' ' :content' '(inform :content "ok2")' 'junk words' '(inform :content "ok3" extra)' '(inform :content "ok4")' >"$f"
    run -1 --separate-stderr acp-convert --from=fipa-acl --to=fipa --rejects="$BATS_TEST_TMPDIR/rej" "$f"
    assert_equal "${#lines[@]}" 3
    assert_line --index 0 --partial '"ok1"'
    assert_line --index 1 --partial '"ok2"'
    assert_line --index 2 --partial '"ok4"'
    [[ $stderr == *"bad.acl:2:1: error: expression without its closing parenthesis"*"[acl-syntax]"* ]]
    [[ $stderr == *"bad.acl:6:1: error: expected '(' to start a message"*"[acl-syntax]"* ]]
    [[ $stderr == *"bad.acl:7:23: error: parameter 'extra' without a value"* || $stderr == *"bad.acl:7:"*"[acl-syntax]"* ]]
    run -0 cat "$BATS_TEST_TMPDIR/rej"
    assert_line --index 0 '(inform :sender'
}

@test "acl: a # without digits is a word to the record splitter as to the parser" {
    local f=$BATS_TEST_TMPDIR/hash.acl
    printf '%s\n' '(inform :content #"" :x-a y)' '(inform :content "two")' '(inform :content #0" :x-b #")' >"$f"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=fipa "$f"
    assert_line --index 0 '{"performative":"inform","content":"#\"\"","X-a":"y"}'
    assert_line --index 1 '{"performative":"inform","content":"two"}'
    assert_line --index 2 '{"performative":"inform","content":"","X-b":"#\""}'
}

@test "acl: every warning of a message names its own line and column, in any order" {
    # The parser counts lines on from the previous diagnostic; the content's warning comes last
    # although it is earlier in the message, so the count must start again.
    local f=$BATS_TEST_TMPDIR/warn.acl
    printf '%s\n' '(inform :a 1' '  :b 2 :reply-by 20240115T103500000' ' :content "{x" :language json' ' :c 3)' >"$f"
    run -0 --separate-stderr acp-convert --from=fipa-acl --to=fipa "$f"
    assert_equal "$(grep -o 'warn.acl:[0-9]*:[0-9][0-9]*' <<<"$stderr" | tr '\n' ' ')" \
        'warn.acl:1:9 warn.acl:2:3 warn.acl:2:18 warn.acl:4:2 warn.acl:3:11 '
}

@test "acl: --max-line-bytes bounds one expression" {
    local f=$BATS_TEST_TMPDIR/long.acl
    { printf '(inform :content "'; head -c 5000 /dev/zero | tr '\0' x; printf '")\n(inform :content "short")\n'; } >"$f"
    run -1 --separate-stderr acp-convert --to=fipa --max-line-bytes=1K "$f"
    assert_output '{"performative":"inform","content":"short"}'
    [[ $stderr == *"long.acl:1: error:"*"[line-too-long]"* ]]
}

@test "acl: --from=auto decides per message" {
    local f=$BATS_TEST_TMPDIR/mixed
    printf '%s\n' '{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"hb","ts":1}' '(inform' ' :sender (agent-identifier :name a))' '{"performative":"agree","sender":"b","receiver":"a","content":{}}' >"$f"
    run -0 --separate-stderr acp-convert --to=fipa --stats "$f"
    assert_line --index 0 --partial '"x-iacp-kind":"hb"'
    assert_line --index 1 '{"performative":"inform","sender":"a"}'
    assert_line --index 2 '{"performative":"agree","sender":"b","receiver":"a","content":{}}'
    [[ $stderr == *"3 records: 3 valid, 0 rejected, 0 blank"* ]]
}

@test "acl: the string form cannot carry everything; that is an error, not a loss" {
    local f
    f=$(lines_file '{"performative":"inform","sender":42,"receiver":"b","content":{}}' \
        '{"performative":"inform","reply_by":"tomorrow","content":{}}' \
        '{"performative":"inform","ontology":{"a":1},"content":{}}' \
        '{"performative":"inform","content":"a\u0000b"}')
    run -1 --separate-stderr acp-convert --to=fipa-acl "$f"
    assert_output ''
    [[ $stderr == *":4:"*"[nul-byte]"* ]] # the input contract stops NULs first
    [[ $stderr == *":1: error:"*"[convert-unwritable]"* ]]
    [[ $stderr == *":2: error: reply_by 'tomorrow'"*"[convert-unwritable]"* ]]
    [[ $stderr == *":3: error: 'ontology' must be a string"*"[convert-unwritable]"* ]]
}

# --- Property tests: round trips on generated captures, compared after one normalisation. ---

setup_file() {
    build_test_programs
    export GEN_MIXED=$BATS_FILE_TMPDIR/gen-mixed
    cc -std=c11 -O2 -o "$GEN_MIXED" "$TESTS_DIR/../bench/gen-mixed.c"
}

# Converts IN to VIA and back to BACK and compares with IN under tests/normalise.jq. Only the
# messages that acp-validate --stateless accepts can come back: the others are an error on the
# way back (convert-output-invalid, tested apart), so IN is first narrowed to them.
round_trip() {
    local in=$1 via=$2 back=$3 tmp=$BATS_TEST_TMPDIR
    acp-validate --stateless "$in" >"$tmp/valid" 2>/dev/null || true
    [ "$(wc -l <"$tmp/valid")" -gt 150 ] || return 1
    in=$tmp/valid
    acp-convert --seed=5 --now=1700000000 --to="$via" "$in" >"$tmp/mid" 2>"$tmp/err1" || return 1
    acp-convert --seed=5 --now=1700000000 --to="$back" "$tmp/mid" >"$tmp/back" 2>"$tmp/err2" || return 1
    jq -S -c -f "$TESTS_DIR/normalise.jq" "$in" >"$tmp/want"
    jq -S -c -f "$TESTS_DIR/normalise.jq" "$tmp/back" >"$tmp/got"
    [ "$(wc -l <"$tmp/want")" -eq "$(wc -l <"$in")" ] || return 1
    diff -u "$tmp/want" "$tmp/got"
}

@test "property: the generators cover every IACP kind and every FIPA act" {
    "$GEN_MIXED" iacp 240 1 >"$BATS_TEST_TMPDIR/i"
    "$GEN_MIXED" fipa 240 1 >"$BATS_TEST_TMPDIR/f"
    run -0 jq -r .kind "$BATS_TEST_TMPDIR/i"
    for k in task.assign task.accept task.reject task.result task.cancel hb mem.sync tool.query tool.reply ctl.drain ctl.halt; do
        assert_line "$k"
    done
    run -0 jq -r '.performative | gsub("(?<a>[a-z])(?<b>[A-Z])"; "\(.a)_\(.b)") | ascii_downcase | gsub("-"; "_")' "$BATS_TEST_TMPDIR/f"
    for act in accept_proposal agree cancel cfp confirm disconfirm failure inform inform_if inform_ref \
        not_understood propagate propose proxy query_if query_ref refuse reject_proposal request \
        request_when request_whenever subscribe counter_propose; do
        assert_line "$act"
    done
    # and every spelling: snake, kebab, UPPER and PascalCase
    run -0 grep -c -e '"performative":"[a-z]*_' -e '"performative":"[a-z]*-' -e '"performative":"[A-Z]*_' -e '"performative":"[A-Z][a-z]*[A-Z]' "$BATS_TEST_TMPDIR/f"
}

@test "property: iacp -> fipa -> iacp gives back the input" {
    for seed in 1 2 3; do
        "$GEN_MIXED" iacp 300 "$seed" >"$BATS_TEST_TMPDIR/in"
        round_trip "$BATS_TEST_TMPDIR/in" fipa iacp
    done
}

@test "property: iacp -> fipa-acl -> iacp gives back the input" {
    for seed in 1 2 3; do
        "$GEN_MIXED" iacp 300 "$seed" >"$BATS_TEST_TMPDIR/in"
        round_trip "$BATS_TEST_TMPDIR/in" fipa-acl iacp
    done
}

@test "property: fipa -> iacp -> fipa gives back the input" {
    for seed in 1 2 3; do
        "$GEN_MIXED" fipa 300 "$seed" >"$BATS_TEST_TMPDIR/in"
        round_trip "$BATS_TEST_TMPDIR/in" iacp fipa
    done
}

@test "property: fipa -> fipa-acl -> fipa gives back the input" {
    for seed in 1 2 3; do
        "$GEN_MIXED" fipa 300 "$seed" >"$BATS_TEST_TMPDIR/in"
        round_trip "$BATS_TEST_TMPDIR/in" fipa-acl fipa
    done
}

@test "property: what acp-convert writes is what a JSON serialiser writes of it, byte for byte" {
    # The output is written directly (strings unescaped by nobody, numbers in their shortest
    # form, members in order): jq -c . reads it and writes the same bytes back. The content
    # keeps the text it came with, so the input is in jq's spelling first.
    local seed dir
    for seed in 1 2 3; do
        for dir in "iacp fipa" "fipa iacp" "fipa fipa" "iacp iacp"; do
            set -- $dir
            "$GEN_MIXED" "$1" 300 "$seed" | jq -c . >"$BATS_TEST_TMPDIR/in"
            acp-convert --seed=1 --now=1700000000 --to="$2" "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out" 2>/dev/null || true
            [ "$(wc -l <"$BATS_TEST_TMPDIR/out")" -gt 150 ]
            jq -c . "$BATS_TEST_TMPDIR/out" >"$BATS_TEST_TMPDIR/again"
            cmp "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/again"
        done
    done
}

@test "property: what cannot come back is an error on the way back, and only what was invalid" {
    for seed in 1 2 3; do
        "$GEN_MIXED" iacp 300 "$seed" >"$BATS_TEST_TMPDIR/in"
        acp-validate --stateless --diagnostics=json "$BATS_TEST_TMPDIR/in" 2>&1 >/dev/null |
            jq -r 'select(.severity == "error") | .line' | sort -u >"$BATS_TEST_TMPDIR/invalid"
        acp-convert --to=fipa "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/mid"
        run -1 --separate-stderr acp-convert --to=iacp --diagnostics=json "$BATS_TEST_TMPDIR/mid"
        jq -r 'select(.severity == "error") | "\(.line) \(.code)"' <<<"$stderr" >"$BATS_TEST_TMPDIR/rejected"
        run -0 awk '$2 != "convert-output-invalid"' "$BATS_TEST_TMPDIR/rejected"
        assert_output ''
        [ -s "$BATS_TEST_TMPDIR/rejected" ]
        run -0 bash -c "cut -d' ' -f1 '$BATS_TEST_TMPDIR/rejected' | sort -u | comm -23 - '$BATS_TEST_TMPDIR/invalid'"
        assert_output ''
    done
}

@test "property: the comparison notices a difference" {
    "$GEN_MIXED" fipa 20 1 >"$BATS_TEST_TMPDIR/in"
    acp-convert --to=fipa "$BATS_TEST_TMPDIR/in" | sed '5s/"sender":/"sender":"x","was":/' >"$BATS_TEST_TMPDIR/changed"
    jq -S -c -f "$TESTS_DIR/normalise.jq" "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/a"
    jq -S -c -f "$TESTS_DIR/normalise.jq" "$BATS_TEST_TMPDIR/changed" >"$BATS_TEST_TMPDIR/b"
    run -1 diff -q "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}

# --- Documentation and completions stay in step with --help and the code table. ---

help_long_options() {
    acp-convert --help | grep -o -e '--[a-z][a-z-]*' | sort -u
}

@test "convert: the man page documents every option of --help" {
    local opt missing=()
    for opt in $(help_long_options); do
        grep -q -- "^\.B[IR]* .*$opt" <(sed 's/\\-/-/g' "$TESTS_DIR/../man/acp-convert.1") || missing+=("$opt")
    done
    [ ${#missing[@]} -eq 0 ] || fail "not in acp-convert.1: ${missing[*]}"
}

@test "convert: the bash, zsh and fish completions list every long option of --help" {
    local opt dir=$TESTS_DIR/../completions missing=()
    for opt in $(help_long_options); do
        grep -q -- "$opt\\b" "$dir/acp-convert.bash" || missing+=("bash:$opt")
        grep -q -- "'$opt[=\[]" "$dir/_acp-convert" || grep -q -- "$opt=}" "$dir/_acp-convert" || grep -q -- ",$opt}" "$dir/_acp-convert" || missing+=("zsh:$opt")
        grep -q -- "-l ${opt#--} " "$dir/acp-convert.fish" || missing+=("fish:$opt")
    done
    [ ${#missing[@]} -eq 0 ] || fail "missing: ${missing[*]}"
    # What the completions offer, in the shells themselves: tests/docs.bats.
}

@test "convert: every Conversion code is explained and listed in acp(7)" {
    local code
    for code in $(acp-convert --explain=list | awk '$1 ~ /^(acl|convert)-/ {print $1}'); do
        run -0 acp-convert --explain="$code"
        grep -q "^\\.B ${code//-/\\\\-}\$" "$TESTS_DIR/../man/acp.7" || fail "$code not in acp.7"
    done
    run -0 bash -c "acp-convert --explain=list | grep -c -E '^(acl|convert)-'"
    assert_output 15
}

@test "acl: member names that look like the writer's own prefixes come back unchanged" {
    local f
    f=$(lines_file '{"performative":"inform","json-note":"text","x-acp-odd":"v","X-ACP-JSON-n":"1","trace":{"a":[1]},"X-flag":"on","content":{}}')
    run -0 --separate-stderr bash -c "acp-convert --to=fipa-acl '$f' | acp-convert --to=fipa"
    assert_output "$(cat "$f")"
}

# Memory the input cannot blow up: what the converter remembers of each message (its key, and the
# conversation_id its replies take) is bounded whatever the ids' length: 1,000 IACP heartbeats
# with ids of 1 MB each held 1.9 GiB on the way to FIPA, and 1,000 FIPA requests with 1 MB
# reply_with values 960 MiB on the way to IACP.
# The test feeds a tenth as many (the string form's writer takes 1 MB ids at 7 MB/s, which is
# issue 30's): held whole, even they would be twice its bound and more.
@test "100 messages of 1 MB ids hold a few MiB, converted either way" {
    skip_under valgrind "100 MB through it takes too long"
    local t=$BATS_TEST_TMPDIR to
    "$ACP_BUILD/gen-adversarial" long-ids 100 >"$t/iacp"
    "$ACP_BUILD/gen-adversarial" fipa-long-ids 100 >"$t/fipa"
    for to in fipa fipa-acl; do
        "$ACP_BUILD/peak-rss" acp-convert --to="$to" "$t/iacp" >"$t/out" 2>"$t/err" || fail "status $?"
        assert_rss_below "$t/err" $((48 * 1024)) "--to=$to"
        [ "$(grep -c '^[({]' "$t/out")" -eq 100 ] || fail "--to=$to: $(grep -c '^[({]' "$t/out")"
    done
    "$ACP_BUILD/peak-rss" acp-convert --to=iacp "$t/fipa" >"$t/out" 2>"$t/err" || fail "status $?"
    assert_rss_below "$t/err" $((48 * 1024)) "--to=iacp"
    [ "$(wc -l <"$t/out")" -eq 100 ] || fail "--to=iacp: $(wc -l <"$t/out") lines"
}

# And names: the stream clock knows each sender by name (1,000 senders of 480,000 bytes held
# 1.35 GiB on the way to IACP), the converter each forager (695 MiB on the way to FIPA).
# The test feeds a fifth as many: held whole, even they would be several times its bound.
@test "200 messages of agents of 480,000-byte names hold a few MiB, converted either way" {
    skip_under valgrind "100 MB through it takes too long"
    local t=$BATS_TEST_TMPDIR
    "$ACP_BUILD/gen-adversarial" fipa-long-names 200 >"$t/fipa"
    "$ACP_BUILD/gen-adversarial" long-names 200 >"$t/iacp"
    "$ACP_BUILD/peak-rss" acp-convert --to=iacp "$t/fipa" >/dev/null 2>"$t/err" || fail "status $?"
    assert_rss_below "$t/err" $((48 * 1024)) "--to=iacp"
    "$ACP_BUILD/peak-rss" acp-convert --to=fipa "$t/iacp" >/dev/null 2>"$t/err" || fail "status $?"
    assert_rss_below "$t/err" $((48 * 1024)) "--to=fipa"
}

@test "--to=jsonrpc: an MCP capture's messages bare, byte for byte, from acp-tap's records and mcpsnoop's logs" {
    cd "$BATS_TEST_TMPDIR"
    local tap=$FIXTURES/mcp/everything-progress.jsonl
    # each record of a line: its message member's bytes, as they were in the record
    run -0 --separate-stderr acp-convert --to=jsonrpc "$tap"
    [ "$stderr" = "" ] || fail "$stderr"
    assert_equal "$output" "$(grep '"seq":' "$tap" | sed 's/^.*,"message"://; s/}$//')"
    assert_equal "$(acp-convert -j 2 --to=jsonrpc "$tap")" "$output"
    # bare lines stay as they are: the conversion again changes nothing
    printf '%s\n' "$output" >bare.jsonl
    run -0 acp-convert --to=jsonrpc bare.jsonl
    assert_equal "$output" "$(cat bare.jsonl)"
    # mcpsnoop's envelopes: their raw frames, its stderr and meta records left out, a frame that
    # was no JSON an error of its own
    run -1 --separate-stderr acp-convert --to=jsonrpc "$FIXTURES/mcp/mcpsnoop-stdio.jsonl"
    assert_equal "$output" "$(jq -c 'select(.raw and (.direction | test("^(c2s|s2c)$"))) | .raw' "$FIXTURES/mcp/mcpsnoop-stdio.jsonl")"
    [ "$(grep -c 'capture-not-message' <<<"$stderr")" -eq "$(grep -c . <<<"$stderr")" ] || fail "$stderr"
    # what the bare lines hold is what the capture held: acp-validate finds the same shape
    run -0 acp-validate --protocol=mcp bare.jsonl
}

@test "--to=jsonrpc: IACP and FIPA have no mapping to JSON-RPC, nor MCP to IACP or FIPA" {
    run -1 --separate-stderr acp-convert --to=jsonrpc <<<'{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"hb","ts":1312284100}'
    assert_equal "$stderr" "acp-convert: <stdin>:1: error: IACP has no mapping to JSON-RPC: the message cannot be converted [convert-no-mapping]"
    run -1 --separate-stderr acp-convert --to=iacp <<<'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert_equal "$stderr" "acp-convert: <stdin>:1: error: MCP has no mapping to IACP or FIPA: the message cannot be converted [convert-no-mapping]"
}

@test "--to=tap: acp-tap's records as they are; mcpsnoop's made of what they say; what acp-tap's form cannot carry, an error" {
    cd "$BATS_TEST_TMPDIR"
    local tap=$FIXTURES/mcp/everything-progress.jsonl snoop=$FIXTURES/mcp/mcpsnoop-stdio.jsonl
    run -0 --separate-stderr acp-convert --to=tap "$tap"
    assert_equal "$output" "$(cat "$tap")"
    # mcpsnoop's log: its meta a start event, each frame of JSON a record of its own, its seq, its
    # time to the microsecond, its message byte for byte; its stderr, and what was no JSON, errors
    run -1 --separate-stderr acp-convert --to=tap --rejects=rejected.jsonl "$snoop"
    printf '%s\n' "$output" >tap.jsonl
    assert_line --index 0 '{"tap":1,"session":"7f3a","time":"2026-12-06T12:00:00.000001Z","event":"start","pid":null,"command":["npx","server-everything"]}'
    assert_line --index 1 --partial '{"tap":1,"session":"7f3a","time":"2026-12-06T12:00:00.100000Z","seq":2,"dir":"in","message":{"jsonrpc":"2.0","id":0,"method":"initialize",'
    assert_equal "$(acp-convert --to=jsonrpc tap.jsonl)" "$(acp-convert --to=jsonrpc "$snoop" 2>/dev/null)"
    [ "$(grep -c . <<<"$stderr")" -eq 3 ] || fail "$stderr"
    [[ $stderr == *":3: error: a line of the server's stderr, which acp-tap leaves alone: no record of acp-tap's [convert-capture]"* ]] || fail "$stderr"
    # what passed and what was rejected are the log, line for line
    [ $((${#lines[@]} + $(wc -l <rejected.jsonl))) -eq "$(wc -l <"$snoop")" ]
    # the two give the same findings (at other lines), and the conversion again changes nothing
    local unplaced='s/^[^:]*: [^:]*:[0-9]*: //; s/ (see line [0-9]*)//'
    assert_equal "$(acp-validate tap.jsonl 2>&1 >/dev/null | sed "$unplaced" | sort)" \
        "$(acp-validate "$snoop" 2>&1 >/dev/null | grep -v capture-not-message | sed "$unplaced" | sort)"
    assert_equal "$(acp-convert --to=tap tap.jsonl)" "$(cat tap.jsonl)"
    # over HTTP each connection numbers its own ids: a session of its own
    run -0 --separate-stderr acp-convert --to=tap "$FIXTURES/mcp/mcpsnoop-http.jsonl"
    [ "$(jq -r .session <<<"$output" | sort -u | wc -l)" -ge 2 ] || fail "$output"
}

@test "--to=tap of bare lines: the file a session, each line's direction what its method or its request says, no time, and back byte for byte" {
    cd "$BATS_TEST_TMPDIR"
    acp-convert --from=tap --to=jsonrpc "$FIXTURES/mcp/everything-progress.jsonl" >bare.jsonl
    run -0 --separate-stderr acp-convert --to=tap bare.jsonl
    printf '%s\n' "$output" >tap.jsonl
    assert_equal "$stderr" "acp-convert: bare.jsonl:1: warning: bare lines say no time: their records' time is null, their session the file [convert-no-time]"
    # the directions the capture had, the session the file, the lines numbered, no time
    assert_equal "$(jq -r .dir tap.jsonl | paste -sd' ')" \
        "$(jq -r 'select(.seq) | .dir' "$FIXTURES/mcp/everything-progress.jsonl" | paste -sd' ')"
    assert_equal "$(jq -c '[.session, .time, .seq]' tap.jsonl | head -2 | paste -sd' ')" '["bare.jsonl",null,1] ["bare.jsonl",null,2]'
    # and back: the bare lines, byte for byte; the records pair as the capture did
    assert_equal "$(acp-convert --to=jsonrpc tap.jsonl)" "$(cat bare.jsonl)"
    local unplaced='s/^[^:]*: [^:]*:[0-9]*: //; s/ (see line [0-9]*)//'
    assert_equal "$(acp-validate tap.jsonl 2>&1 >/dev/null | sed "$unplaced")" \
        "$(acp-validate "$FIXTURES/mcp/everything-progress.jsonl" 2>&1 >/dev/null | sed "$unplaced")"
    # a line whose direction nothing says (ping: both sides send it), and a bare line of IACP
    run -1 --separate-stderr acp-convert --to=tap <<<'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    [[ $stderr == *"acp-convert: <stdin>:1: error: a bare line whose direction neither its method nor a request says: no record of acp-tap's [convert-capture]"* ]] ||
        fail "$stderr"
    run -1 --separate-stderr acp-convert --to=tap <<<'{"v":"1.1","id":"q-1","from":"queen","to":"f","kind":"hb","ts":1312284100}'
    assert_equal "$stderr" "acp-convert: <stdin>:1: error: a bare line of IACP says no direction, time or session: no record of acp-tap's [convert-capture]"
}

@test "--from=tap, mcpsnoop, jsonrpc: the input's form, any other line an error; round trips keep what the forms keep" {
    cd "$BATS_TEST_TMPDIR"
    local tap=$FIXTURES/mcp/everything-progress.jsonl snoop=$FIXTURES/mcp/mcpsnoop-stdio.jsonl
    cat "$tap" "$snoop" >mixed.jsonl
    printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' >>mixed.jsonl
    # --from=tap: acp-tap's records alone pass, each other line is rejected, nothing lost
    run -1 --separate-stderr acp-convert --from=tap --to=tap --rejects=rejected.jsonl mixed.jsonl
    assert_equal "$output" "$(cat "$tap")"
    assert_equal "$(cat rejected.jsonl)" "$(tail -n +$(($(wc -l <"$tap") + 1)) mixed.jsonl)"
    [[ $stderr == *":$(($(wc -l <"$tap") + 1)): error: a record of mcpsnoop's, not of acp-tap's (--from) [capture-form]"* ]] || fail "$stderr"
    [[ $stderr == *":$(wc -l <mixed.jsonl): error: a line that is no record of acp-tap's (--from) [capture-form]"* ]] || fail "$stderr"
    # --from=mcpsnoop: its envelopes alone
    run -1 --separate-stderr acp-convert --from=mcpsnoop --to=jsonrpc mixed.jsonl
    assert_equal "$output" "$(acp-convert --to=jsonrpc "$snoop" 2>/dev/null)"
    # --from=jsonrpc: every line bare, a capture record no message of any dialect
    run -1 --separate-stderr acp-convert --from=jsonrpc --to=jsonrpc mixed.jsonl
    assert_equal "$output" '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    # the round trips: a capture to bare lines, and again, byte for byte; mcpsnoop to acp-tap's
    # records to bare lines, the same bare lines as straight from mcpsnoop
    acp-convert --from=tap --to=jsonrpc "$tap" >bare.jsonl
    run -0 acp-convert --from=jsonrpc --to=jsonrpc bare.jsonl
    assert_equal "$output" "$(cat bare.jsonl)"
    acp-convert --from=mcpsnoop --to=tap "$snoop" 2>/dev/null >snoop-tap.jsonl || true
    assert_equal "$(acp-convert --from=tap --to=jsonrpc snoop-tap.jsonl)" "$(acp-convert --from=mcpsnoop --to=jsonrpc "$snoop" 2>/dev/null)"
}
