// Runs real JADE agents through the standard interaction protocols of jade.proto on one platform
// and captures every message they send (CaptureService), to give acp-tools real JADE traffic.
//
//   java -cp $JADE_CLASSES:BUILD -Dcapture.dir=DIR Harness DIR
//
// One main container (no GUI, no MTP, a free loopback port), five responders (carol, dave, erin,
// frank, grace) that each answer fipa-request, fipa-query, fipa-contract-net, fipa-subscribe and
// fipa-propose with AchieveREResponder, ContractNetResponder, SubscriptionResponder and
// ProposeResponder, and initiators (alice, bob, queen, ivan, paul, sam) that run the cases of
// cases() with AchieveREInitiator, ContractNetInitiator, SubscriptionInitiator and ProposeInitiator,
// each opening addressed to one to four responders (JADE sends one copy per receiver).
// What each responder does in each case (agree, refuse, fail, inform, propose, ...) is drawn from
// a seeded generator, so every run plays the same cases; timing (and so the interleaving, the
// number of notifications that cross a cancel, and the ids JADE makes from the clock) varies.
//
// Writes DIR/<protocol>.acl (by CaptureService) and DIR/outcomes.tsv: one line per
// conversation with what its initiator saw from each participant and the outcome that follows
// in acp-trace's terms (acp(7), Outcomes).

import jade.core.AID;
import jade.core.Agent;
import jade.core.Profile;
import jade.core.ProfileImpl;
import jade.core.behaviours.Behaviour;
import jade.core.behaviours.OneShotBehaviour;
import jade.core.behaviours.TickerBehaviour;
import jade.domain.FIPAAgentManagement.FailureException;
import jade.domain.FIPAAgentManagement.NotUnderstoodException;
import jade.domain.FIPAAgentManagement.RefuseException;
import jade.lang.acl.ACLMessage;
import jade.lang.acl.ACLParser;
import jade.lang.acl.MessageTemplate;
import jade.proto.AchieveREInitiator;
import jade.proto.AchieveREResponder;
import jade.proto.ContractNetInitiator;
import jade.proto.ContractNetResponder;
import jade.proto.ProposeInitiator;
import jade.proto.ProposeResponder;
import jade.proto.SubscriptionInitiator;
import jade.proto.SubscriptionResponder;
import jade.wrapper.AgentController;
import jade.wrapper.ContainerController;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

public class Harness {
    static final String[] RESPONDERS = {"carol", "dave", "erin", "frank", "grace"};

    /** One conversation to run: who opens it, to whom, with what, and what each responder does. */
    static final class Case {
        final int task;
        final String protocol;
        final String initiator;
        int performative;
        final List<String> receivers = new ArrayList<>();
        final Map<String, String> act = new LinkedHashMap<>(); // receiver -> what it does
        final Map<String, Integer> price = new LinkedHashMap<>(); // contract net: its bid
        final Map<String, String> cancel = new LinkedHashMap<>(); // subscribe: keep, ignore, none
        String accept = "lowest"; // contract net: lowest, two, none
        int style; // the opening's language and content (opening())
        long replyByMs = -1;
        long copyDelayMs = Long.getLong("capture.copyDelayMs", 3); // the pause after each opening copy
        volatile String convId;
        // what the initiator saw, per receiver
        final Map<String, List<String>> seen = new LinkedHashMap<>();
        final Map<String, Integer> informsBeforeCancel = new ConcurrentHashMap<>();
        final Map<String, Integer> informsAfterCancel = new ConcurrentHashMap<>();
        final Map<String, Boolean> cancelled = new ConcurrentHashMap<>();
        String file;

        Case(int task, String protocol, String initiator) {
            this.task = task;
            this.protocol = protocol;
            this.initiator = initiator;
            this.file = CaptureService.fileFor(protocolOnly(protocol));
        }

        synchronized void saw(ACLMessage m) {
            String who = m.getSender() == null ? "?" : m.getSender().getLocalName();
            seen.computeIfAbsent(who, k -> new ArrayList<>()).add(ACLMessage.getPerformative(m.getPerformative()).toLowerCase());
        }

        synchronized void note(String who, String what) {
            seen.computeIfAbsent(who, k -> new ArrayList<>()).add(what);
        }
    }

    static ACLMessage protocolOnly(String p) {
        ACLMessage m = new ACLMessage(ACLMessage.INFORM);
        m.setProtocol(p);
        return m;
    }

    static final List<Case> CASES = new ArrayList<>();
    static final Map<String, Case> BY_CONV = new ConcurrentHashMap<>();

    static void register(Case c, String convId) {
        if (convId == null) return; // no messages to send (contract net with no proposal)
        c.convId = convId;
        BY_CONV.put(convId, c);
    }

    static Case caseOf(ACLMessage m) {
        return m.getConversationId() == null ? null : BY_CONV.get(m.getConversationId());
    }

    static AID aid(String local) {
        return new AID(local, AID.ISLOCALNAME);
    }

    // ------------------------------------------------------------------ the cases

    static String pick(Random r, String[] acts, int[] weights) {
        int total = 0;
        for (int w : weights) total += w;
        int x = r.nextInt(total);
        for (int i = 0; i < acts.length; i++) {
            x -= weights[i];
            if (x < 0) return acts[i];
        }
        return acts[acts.length - 1];
    }

    static List<String> receivers(Random r, int min, int max) {
        List<String> all = new ArrayList<>(Arrays.asList(RESPONDERS));
        Collections.shuffle(all, r);
        int n = min + r.nextInt(max - min + 1);
        return new ArrayList<>(all.subList(0, n));
    }

    static void cases() {
        casesDrawn();
        for (int i = 0; i < CASES.size(); i++) {
            if (i % 3 == 2) CASES.get(i).copyDelayMs = 0;
        }
        // two subscriptions whose first participant refuses before the next copy goes
        int task = 0;
        for (Case c : CASES) task = Math.max(task, c.task);
        Case a = new Case(++task, "fipa-subscribe", "sam");
        a.performative = ACLMessage.SUBSCRIBE;
        a.receivers.addAll(Arrays.asList("carol", "dave", "erin"));
        a.act.put("carol", "refuse");
        a.cancel.put("carol", "none");
        a.act.put("dave", "agree-fast+cancel-none");
        a.cancel.put("dave", "keep");
        a.act.put("erin", "silent-fast+cancel-none");
        a.cancel.put("erin", "keep");
        a.style = 1;
        Case b = new Case(++task, "fipa-subscribe", "sam");
        b.performative = ACLMessage.SUBSCRIBE;
        b.receivers.addAll(Arrays.asList("frank", "grace"));
        for (String x : b.receivers) {
            b.act.put(x, "refuse");
            b.cancel.put(x, "none");
        }
        b.style = 0;
        // after the other subscriptions, before the proposals
        int at = 0;
        for (int i = 0; i < CASES.size(); i++) if (CASES.get(i).protocol.equals("fipa-subscribe")) at = i + 1;
        CASES.add(at, a);
        CASES.add(at + 1, b);
    }

    static void casesDrawn() {
        Random r = new Random(22);
        int task = 1;
        // fipa-request: alice and bob (concurrently), queen with messages read from the string form
        String[] reqActs = {"agree-inform", "inform", "refuse", "agree-failure", "failure", "not-understood"};
        int[] reqW = {35, 20, 15, 10, 10, 10};
        for (int i = 0; i < 40; i++) {
            Case c = new Case(task++, "fipa-request", i % 2 == 0 ? "alice" : "bob");
            c.performative = ACLMessage.REQUEST;
            c.receivers.addAll(receivers(r, i < 4 ? 1 : 2, 4));
            for (String x : c.receivers) c.act.put(x, pick(r, reqActs, reqW));
            c.style = (i + 6) % 12; // so that task 7 is {"task": 7, "big": 1e3}
            if (i % 7 == 3) c.replyByMs = 5000;
            CASES.add(c);
        }
        for (int i = 0; i < 6; i++) {
            Case c = new Case(task++, "fipa-request", "queen");
            c.performative = ACLMessage.REQUEST;
            c.receivers.addAll(receivers(r, 1, 3));
            for (String x : c.receivers) c.act.put(x, pick(r, reqActs, reqW));
            c.style = 100; // parsed from acp-convert's string form (x-iacp-*)
            CASES.add(c);
        }
        // fipa-query: query-if and query-ref
        String[] qActs = {"inform", "agree-inform", "refuse", "failure", "not-understood"};
        int[] qW = {50, 15, 15, 10, 10};
        for (int i = 0; i < 24; i++) {
            Case c = new Case(task++, "fipa-query", "ivan");
            c.performative = i % 2 == 0 ? ACLMessage.QUERY_IF : ACLMessage.QUERY_REF;
            c.receivers.addAll(receivers(r, 1, 4));
            for (String x : c.receivers) c.act.put(x, pick(r, qActs, qW));
            c.style = i % 4;
            CASES.add(c);
        }
        // fipa-contract-net
        String[] cnActs = {"propose-inform", "propose-failure", "refuse", "not-understood", "cfp-failure"};
        int[] cnW = {55, 10, 20, 8, 7};
        String[] policies = {"lowest", "lowest", "two", "none", "lowest"};
        for (int i = 0; i < 20; i++) {
            Case c = new Case(task++, "fipa-contract-net", "paul");
            c.performative = ACLMessage.CFP;
            c.receivers.addAll(receivers(r, 2, 4));
            for (String x : c.receivers) {
                c.act.put(x, pick(r, cnActs, cnW));
                c.price.put(x, 50 + r.nextInt(100));
            }
            c.accept = policies[i % policies.length];
            c.style = i % 3;
            if (i % 2 == 0) c.replyByMs = 10000;
            CASES.add(c);
        }
        // fipa-subscribe: responders agree (or not), refuse, notify slowly or fast, end with a
        // failure; the initiator cancels with cancel(r, false) or cancel(r, true)
        String[] subActs = {"agree-fast", "agree-slow", "silent-fast", "silent-slow", "refuse", "agree-fail"};
        int[] subW = {30, 15, 15, 10, 15, 15};
        String[] cancels = {"keep", "ignore"};
        for (int i = 0; i < 14; i++) {
            Case c = new Case(task++, "fipa-subscribe", "sam");
            c.performative = ACLMessage.SUBSCRIBE;
            c.receivers.addAll(receivers(r, i < 2 ? 1 : 2, 3));
            for (String x : c.receivers) {
                String a = pick(r, subActs, subW);
                // how the responder answers a cancel: nothing (JADE's default) or an inform
                if (!a.equals("refuse") && !a.equals("agree-fail")) a += r.nextInt(3) == 0 ? "+cancel-inform" : "+cancel-none";
                c.act.put(x, a);
                c.cancel.put(x, a.startsWith("refuse") || a.startsWith("agree-fail") ? "none" : cancels[r.nextInt(2)]);
            }
            c.style = i % 2;
            CASES.add(c);
        }
        // fipa-propose
        String[] pActs = {"accept", "reject", "not-understood"};
        int[] pW = {45, 45, 10};
        for (int i = 0; i < 20; i++) {
            Case c = new Case(task++, "fipa-propose", "alice");
            c.performative = ACLMessage.PROPOSE;
            c.receivers.addAll(receivers(r, i < 3 ? 1 : 2, 4));
            for (String x : c.receivers) c.act.put(x, pick(r, pActs, pW));
            c.style = i % 3;
            CASES.add(c);
        }
    }

    // ------------------------------------------------------------------ contents

    static boolean isJson(ACLMessage m) {
        return m.getLanguage() != null && m.getLanguage().equalsIgnoreCase("json");
    }

    static String name(String local) {
        return aid(local).getName();
    }

    /** The opening message of a case, before JADE's initiator makes one copy per receiver. */
    static ACLMessage opening(Case c) throws Exception {
        ACLMessage m;
        int n = c.task;
        if (c.style == 100) {
            // A message that came from IACP through acp-convert's string form, read with JADE's
            // own parser: its :x-iacp-* parameters come back as :X-iacp-*.
            String text = "(REQUEST\n :x-iacp-v \"1.1\"\n :reply-with q-" + String.format("%04x", 0xa0 + n) + "\n"
                + " :sender (agent-identifier :name queen)\n :receiver (set (agent-identifier :name forager-07))\n"
                + " :x-iacp-kind task.assign\n :content \"{\\\"node\\\":\\\"tg:crawl-index/" + n
                + "\\\",\\\"deadline\\\":1312284400,\\\"task\\\":" + n + "}\"\n"
                + " :language json :X-acp-language none\n :conversation-id queen/q-" + String.format("%04x", 0xa0 + n) + "\n"
                + " :protocol fipa-request)";
            m = (ACLMessage) ACLParser.create().parse(new StringReader(text)).clone();
            m.setSender(null);
            m.clearAllReceiver();
        } else {
            m = new ACLMessage(c.performative);
            switch (c.protocol) {
            case "fipa-request": requestContent(c, m); break;
            case "fipa-query": queryContent(c, m); break;
            case "fipa-contract-net": cfpContent(c, m); break;
            case "fipa-subscribe": subscribeContent(c, m); break;
            case "fipa-propose": proposeContent(c, m); break;
            default: throw new IllegalStateException(c.protocol);
            }
        }
        m.setProtocol(c.protocol);
        for (String x : c.receivers) m.addReceiver(aid(x));
        if (c.replyByMs > 0) m.setReplyByDate(new java.util.Date(System.currentTimeMillis() + c.replyByMs));
        return m;
    }

    static void requestContent(Case c, ACLMessage m) {
        int n = c.task;
        String first = name(c.receivers.get(0));
        switch (c.style) {
        case 0:
            m.setLanguage("json");
            m.setContent("{\"task\": " + n + ", \"big\": 1e3}");
            break;
        case 1:
            m.setLanguage("json");
            m.setContent("{\"task\": " + n + ", \"ratio\": 0.50, \"tags\": [\"a\", \"b\"], \"neg\": -0}");
            m.addUserDefinedParameter("x-iacp-kind", "task.assign");
            break;
        case 2:
            m.setLanguage("fipa-sl");
            m.setOntology("crawl-ontology");
            m.setContent("((action (agent-identifier :name " + first + ") (crawl :task " + n + " :node \"tg:crawl-index/" + n + "\")))");
            break;
        case 3:
            m.setLanguage("json");
            m.setContent("{\"task\":" + n + ",\"nested\":{\"k\":[1,2,{\"x\":null}]},\"flag\":true}");
            m.addReplyTo(aid(c.initiator)); // JADE writes :reply-to (set with a line break
            break;
        case 4:
            m.setLanguage("JSON");
            m.setContent("{\"task\": " + n + ", \"name\": \"caf\u00e9 \u2013 \u65e5\u672c\", \"path\": \"C:\\\\tmp\\\\x\"}");
            break;
        case 5:
            m.setLanguage("json");
            m.setContent("{\"task\": " + n + ", \"e\": 1E+2, \"f\": 2.5e-3, \"id\": 12345678901234567890}");
            m.addUserDefinedParameter("priority", "high");
            break;
        case 6:
            m.setLanguage("json");
            m.setContent("{\n  \"task\": " + n + ",\n  \"list\": [1, 2, 3]\n}");
            break;
        case 7:
            m.setContent("ping " + n);
            break;
        case 8:
            m.setLanguage("json");
            m.setOntology("crawl-ontology");
            m.setContent("{\"z\": 1, \"a\": 2, \"task\" : " + n + "}");
            m.addUserDefinedParameter("x-iacp-kind", "task.assign");
            m.addUserDefinedParameter("x-iacp-id", "q-" + n);
            break;
        case 9:
            m.setLanguage("fipa-sl");
            m.setContent("((action (agent-identifier :name " + first + ") (index :task " + n + ")))");
            m.addUserDefinedParameter("priority", "low");
            m.addReplyTo(aid(c.initiator));
            break;
        case 10:
            m.setLanguage("json");
            m.setContent("{\"task\": " + n + ", \"text\": \"a (b) c\", \"unicode\": \"\\u00e9\", \"empty\": {}, \"arr\": []}");
            break;
        default:
            m.setLanguage("json");
            m.setContent("{\"task\": " + n + ", \"price\": 10.0, \"qty\": 3, \"exp\": 1.5E-7}");
            // a sender that names its transport address, as agents of a platform with an MTP do
            AID me = aid(c.initiator);
            me.addAddresses("http://127.0.0.1:7778/acc");
            m.setSender(me);
            break;
        }
    }

    static void queryContent(Case c, ACLMessage m) {
        int n = c.task;
        boolean json = c.style >= 2;
        if (c.performative == ACLMessage.QUERY_IF) {
            if (json) {
                m.setLanguage("json");
                m.setContent("{\"task\": " + n + ", \"done\": null}");
            } else {
                m.setLanguage("fipa-sl");
                m.setContent("((done (task " + n + ")))");
            }
        } else {
            if (json) {
                m.setLanguage("json");
                m.setContent("{\"select\": \"load\", \"task\": " + n + ", \"window\": 6e1}");
            } else {
                m.setLanguage("fipa-sl");
                m.setOntology("load-ontology");
                m.setContent("((iota ?x (load (task " + n + ") ?x)))");
            }
        }
    }

    static void cfpContent(Case c, ACLMessage m) {
        int n = c.task;
        if (c.style == 0) {
            m.setLanguage("json");
            m.setContent("{\"task\": " + n + ", \"deliver\": \"cm://index/" + n + "\", \"max_price\": 1.5e2}");
        } else if (c.style == 1) {
            m.setLanguage("fipa-sl");
            m.setOntology("delivery-ontology");
            m.setContent("((action (agent-identifier :name " + name(c.initiator) + ") (deliver :task " + n + ")))");
        } else {
            m.setLanguage("json");
            m.setContent("{\"task\": " + n + ", \"deliver\": \"cm://index/" + n + "\"}");
            m.addUserDefinedParameter("x-iacp-kind", "task.offer");
        }
    }

    static void subscribeContent(Case c, ACLMessage m) {
        int n = c.task;
        if (c.style == 0) {
            m.setLanguage("fipa-sl");
            m.setContent("((iota ?x (load (task " + n + ") ?x)))");
        } else {
            m.setLanguage("json");
            m.setContent("{\"topic\": \"load\", \"task\": " + n + ", \"every\": 1e-3}");
        }
    }

    static void proposeContent(Case c, ACLMessage m) {
        int n = c.task;
        if (c.style == 0) {
            m.setLanguage("fipa-sl");
            m.setContent("((sell (book :task " + n + ") (price 20)))");
        } else if (c.style == 1) {
            m.setLanguage("json");
            m.setContent("{\"task\": " + n + ", \"offer\": 20.00, \"currency\": \"EUR\"}");
        } else {
            m.setLanguage("json");
            m.setContent("{\"task\": " + n + ", \"offer\": 2e1}");
            m.addUserDefinedParameter("priority", "normal");
        }
    }

    // What a responder puts in its answers, by responder:
    //   carol  SL content, keeps the :language createReply copied (so SL under :language json)
    //   dave   JSON content, keeps the copied :language
    //   erin   JSON under json, SL otherwise; answers :x-iacp-kind with :x-iacp-kind
    //   frank  no content
    //   grace  refusals and failures as JADE's exceptions (no language), results in fipa-sl
    static ACLMessage answer(Agent a, ACLMessage to, int perf, String what) {
        ACLMessage m = to.createReply();
        m.setPerformative(perf);
        String me = a.getLocalName();
        Case c = caseOf(to);
        int n = c == null ? 0 : c.task;
        boolean json;
        switch (me) {
        case "carol": json = false; break;
        case "dave": json = true; break;
        case "frank": return m;
        case "grace":
            json = false;
            m.setLanguage("fipa-sl");
            break;
        default: json = isJson(to); break;
        }
        m.setContent(json ? jsonAnswer(perf, what, n, to) : slAnswer(perf, what, n, to));
        if (me.equals("erin") && (to.getUserDefinedParameter("iacp-kind") != null || to.getUserDefinedParameter("x-iacp-kind") != null)) {
            String kind = perf == ACLMessage.AGREE ? "task.accept" : perf == ACLMessage.REFUSE ? "task.reject" : "task.result";
            m.addUserDefinedParameter("x-iacp-kind", kind);
        }
        return m;
    }

    static String slAnswer(int perf, String what, int n, ACLMessage to) {
        switch (perf) {
        case ACLMessage.AGREE: return "((agree))";
        case ACLMessage.REFUSE: return "((refuse (task " + n + ")) (busy))";
        case ACLMessage.FAILURE: return "((failure (task " + n + ")) (internal-error \"disk full\"))";
        case ACLMessage.NOT_UNDERSTOOD: return "((unknown-task " + n + "))";
        case ACLMessage.PROPOSE: return "((price (task " + n + ") " + what + "))";
        case ACLMessage.ACCEPT_PROPOSAL: return "((accept (task " + n + ")))";
        case ACLMessage.REJECT_PROPOSAL: return "((reject (task " + n + ")) (too-expensive))";
        case ACLMessage.INFORM:
            if ("query-if".equals(what)) return n % 2 == 0 ? "((done (task " + n + ")))" : "((not (done (task " + n + "))))";
            if ("query-ref".equals(what)) return "((= (iota ?x (load (task " + n + ") ?x)) 0.37))";
            if (what != null && what.startsWith("notify")) return "((= (iota ?x (load (task " + n + ") ?x)) " + (30 + Integer.parseInt(what.substring(6))) + "))";
            return "((done (task " + n + ")))";
        default: return "((ok))";
        }
    }

    static String jsonAnswer(int perf, String what, int n, ACLMessage to) {
        switch (perf) {
        case ACLMessage.AGREE: return "{\"accepted\": true}";
        case ACLMessage.REFUSE: return "{\"reason\": \"busy\", \"retry_after\": 5e1}";
        case ACLMessage.FAILURE: return "{\"status\": \"error\", \"reason\": \"disk full\"}";
        case ACLMessage.NOT_UNDERSTOOD: return "{\"error\": \"unknown task\", \"task\": " + n + "}";
        case ACLMessage.PROPOSE: return "{\"task\": " + n + ", \"price\": " + what + ".0}";
        case ACLMessage.ACCEPT_PROPOSAL: return "{\"task\": " + n + ", \"accepted\": true}";
        case ACLMessage.REJECT_PROPOSAL: return "{\"task\": " + n + ", \"accepted\": false, \"reason\": \"too expensive\"}";
        case ACLMessage.INFORM:
            if ("query-if".equals(what)) return n % 2 == 0 ? "true" : "false";
            if ("query-ref".equals(what)) {
                switch (n % 3) {
                case 0: return "{\"load\": 0.370, \"unit\": \"cpu\"}";
                case 1: return "42";
                default: return "\"idle\"";
                }
            }
            if (what != null && what.startsWith("notify")) return "{\"seq\": " + what.substring(6) + ", \"load\": 0.37, \"at\": 1.0e0}";
            return "{\"status\": \"ok\", \"result\": 1.50, \"task\": " + n + "}";
        default: return "{}";
        }
    }

    static String act(Agent a, ACLMessage m) {
        Case c = caseOf(m);
        String x = c == null ? null : c.act.get(a.getLocalName());
        return x == null ? "not-understood" : x;
    }

    static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ responders

    public static class Responder extends Agent {
        SubscriptionResponder subs;
        final Map<String, Integer> sent = new ConcurrentHashMap<>(); // conversation -> notifications

        protected void setup() {
            final Agent me = this;
            addBehaviour(new AchieveREResponder(this, AchieveREResponder.createMessageTemplate("fipa-request")) {
                protected ACLMessage handleRequest(ACLMessage req) throws NotUnderstoodException, RefuseException {
                    return firstAnswer(me, req);
                }

                protected ACLMessage prepareResultNotification(ACLMessage req, ACLMessage resp) throws FailureException {
                    return result(me, req, null);
                }
            });
            addBehaviour(new AchieveREResponder(this, AchieveREResponder.createMessageTemplate("fipa-query")) {
                protected ACLMessage handleRequest(ACLMessage q) throws NotUnderstoodException, RefuseException {
                    return firstAnswer(me, q);
                }

                protected ACLMessage prepareResultNotification(ACLMessage q, ACLMessage resp) throws FailureException {
                    return result(me, q, q.getPerformative() == ACLMessage.QUERY_IF ? "query-if" : "query-ref");
                }
            });
            addBehaviour(new ContractNetResponder(this, MessageTemplate.and(MessageTemplate.MatchProtocol("fipa-contract-net"),
                    MessageTemplate.MatchPerformative(ACLMessage.CFP))) {
                protected ACLMessage handleCfp(ACLMessage cfp) throws RefuseException, FailureException, NotUnderstoodException {
                    String a = act(me, cfp);
                    Case c = caseOf(cfp);
                    switch (a) {
                    case "refuse":
                        if (me.getLocalName().equals("grace")) throw new RefuseException("busy");
                        return answer(me, cfp, ACLMessage.REFUSE, null);
                    case "not-understood":
                        if (me.getLocalName().equals("grace")) throw new NotUnderstoodException("unknown-action");
                        return answer(me, cfp, ACLMessage.NOT_UNDERSTOOD, null);
                    case "cfp-failure":
                        throw new FailureException("no-capacity");
                    default:
                        return answer(me, cfp, ACLMessage.PROPOSE, String.valueOf(c.price.get(me.getLocalName())));
                    }
                }

                protected ACLMessage handleAcceptProposal(ACLMessage cfp, ACLMessage propose, ACLMessage accept) throws FailureException {
                    pause(2);
                    if (act(me, cfp).equals("propose-failure")) {
                        if (me.getLocalName().equals("grace")) throw new FailureException("truck-broken");
                        return answer(me, accept, ACLMessage.FAILURE, null);
                    }
                    return answer(me, accept, ACLMessage.INFORM, null);
                }

                protected void handleRejectProposal(ACLMessage cfp, ACLMessage propose, ACLMessage reject) {
                }
            });
            subs = new SubscriptionResponder(this, SubscriptionResponder.createMessageTemplate(ACLMessage.SUBSCRIBE)) {
                protected ACLMessage handleSubscription(ACLMessage s) throws NotUnderstoodException, RefuseException {
                    String a = act(me, s);
                    if (a.startsWith("refuse")) {
                        if (me.getLocalName().equals("grace")) throw new RefuseException("no-such-topic");
                        return answer(me, s, ACLMessage.REFUSE, null);
                    }
                    createSubscription(s);
                    sent.put(s.getConversationId(), 0);
                    if (a.startsWith("silent")) return null; // JADE's default: no agree
                    return answer(me, s, ACLMessage.AGREE, null);
                }

                protected ACLMessage handleCancel(ACLMessage cancel) throws FailureException {
                    String a = act(me, cancel);
                    super.handleCancel(cancel);
                    if (a.endsWith("+cancel-inform")) {
                        ACLMessage m = cancel.createReply();
                        m.setPerformative(ACLMessage.INFORM);
                        return m;
                    }
                    return null; // JADE's default: no answer
                }
            };
            addBehaviour(subs);
            // the notifier: a fast subscription gets a notification every tick, a slow one
            // every 15 ticks; agree-fail ends with a failure after three
            addBehaviour(new TickerBehaviour(this, 1) {
                protected void onTick() {
                    for (Object o : subs.getSubscriptions()) {
                        SubscriptionResponder.Subscription s = (SubscriptionResponder.Subscription) o;
                        ACLMessage sub = s.getMessage();
                        String conv = sub.getConversationId();
                        Integer k = sent.get(conv);
                        if (k == null) continue;
                        String a = act(me, sub);
                        boolean fast = a.contains("fast");
                        if (!fast && getTickCount() % 15 != 0) continue;
                        if (a.startsWith("agree-fail") && k >= 3) {
                            s.notify(answer(me, sub, ACLMessage.FAILURE, null));
                            sent.remove(conv);
                            s.close();
                            continue;
                        }
                        s.notify(answer(me, sub, ACLMessage.INFORM, "notify" + (k + 1)));
                        sent.put(conv, k + 1);
                    }
                }
            });
            addBehaviour(new ProposeResponder(this, ProposeResponder.createMessageTemplate("fipa-propose")) {
                protected ACLMessage prepareResponse(ACLMessage p) throws NotUnderstoodException, RefuseException {
                    switch (act(me, p)) {
                    case "accept": return answer(me, p, ACLMessage.ACCEPT_PROPOSAL, null);
                    case "reject": return answer(me, p, ACLMessage.REJECT_PROPOSAL, null);
                    default:
                        if (me.getLocalName().equals("grace")) throw new NotUnderstoodException("unknown-goods");
                        return answer(me, p, ACLMessage.NOT_UNDERSTOOD, null);
                    }
                }
            });
        }
    }

    /** The first answer of request or query: null for a result at once. */
    static ACLMessage firstAnswer(Agent me, ACLMessage req) throws NotUnderstoodException, RefuseException {
        String a = act(me, req);
        boolean g = me.getLocalName().equals("grace");
        switch (a) {
        case "refuse":
            if (g) throw new RefuseException("busy");
            return answer(me, req, ACLMessage.REFUSE, null);
        case "not-understood":
            if (g) throw new NotUnderstoodException("unknown-action");
            return answer(me, req, ACLMessage.NOT_UNDERSTOOD, null);
        case "agree-inform":
        case "agree-failure":
            return answer(me, req, ACLMessage.AGREE, null);
        default:
            return null;
        }
    }

    static ACLMessage result(Agent me, ACLMessage req, String what) throws FailureException {
        String a = act(me, req);
        Case c = caseOf(req);
        pause(c == null ? 0 : (c.task * 7 + me.getLocalName().length()) % 6);
        if (a.endsWith("failure")) {
            if (me.getLocalName().equals("grace")) throw new FailureException("disk-full");
            return answer(me, req, ACLMessage.FAILURE, null);
        }
        return answer(me, req, ACLMessage.INFORM, what);
    }

    // ------------------------------------------------------------------ initiators

    public static class Initiator extends Agent {
        final List<Case> todo;
        final CountDownLatch done;
        int next;

        Initiator(List<Case> todo, CountDownLatch done) {
            this.todo = todo;
            this.done = done;
        }

        protected void setup() {
            addBehaviour(new OneShotBehaviour(this) {
                public void action() {
                    startNext();
                }
            });
        }

        void startNext() {
            if (next >= todo.size()) {
                done.countDown();
                return;
            }
            Case c = todo.get(next++);
            try {
                addBehaviour(initiator(this, c));
            } catch (Exception e) {
                e.printStackTrace();
                done.countDown();
            }
        }

        void finished(Case c) {
            pause(5);
            startNext();
        }
    }

    static Behaviour initiator(final Initiator me, final Case c) throws Exception {
        ACLMessage m = opening(c);
        switch (c.protocol) {
        case "fipa-request":
        case "fipa-query":
            return new AchieveREInitiator(me, m) {
                protected String createConvId(Vector msgs) {
                    String id = super.createConvId(msgs);
                    register(c, id);
                    return id;
                }

                protected void handleAgree(ACLMessage x) { c.saw(x); }
                protected void handleRefuse(ACLMessage x) { c.saw(x); }
                protected void handleInform(ACLMessage x) { c.saw(x); }
                protected void handleFailure(ACLMessage x) { c.saw(x); }
                protected void handleNotUnderstood(ACLMessage x) { c.saw(x); }
                protected void handleOutOfSequence(ACLMessage x) { c.saw(x); c.note(x.getSender().getLocalName(), "out-of-sequence"); }

                public int onEnd() {
                    me.finished(c);
                    return super.onEnd();
                }
            };
        case "fipa-contract-net":
            return new ContractNetInitiator(me, m) {
                protected String createConvId(Vector msgs) {
                    String id = super.createConvId(msgs);
                    register(c, id);
                    return id;
                }

                protected void handlePropose(ACLMessage x, Vector acceptances) { c.saw(x); }
                protected void handleRefuse(ACLMessage x) { c.saw(x); }
                protected void handleFailure(ACLMessage x) { c.saw(x); }
                protected void handleNotUnderstood(ACLMessage x) { c.saw(x); }
                protected void handleInform(ACLMessage x) { c.saw(x); }
                protected void handleOutOfSequence(ACLMessage x) { c.saw(x); c.note(x.getSender().getLocalName(), "out-of-sequence"); }

                protected void handleAllResponses(Vector responses, Vector acceptances) {
                    List<ACLMessage> proposals = new ArrayList<>();
                    for (Object o : responses) {
                        ACLMessage x = (ACLMessage) o;
                        if (x.getPerformative() == ACLMessage.PROPOSE) proposals.add(x);
                    }
                    proposals.sort(Comparator.comparingInt((ACLMessage x) -> c.price.get(x.getSender().getLocalName())));
                    int accepted = c.accept.equals("none") ? 0 : c.accept.equals("two") ? 2 : 1;
                    for (int i = 0; i < proposals.size(); i++) {
                        ACLMessage p = proposals.get(i);
                        boolean yes = i < accepted;
                        ACLMessage a = answer(me, p, yes ? ACLMessage.ACCEPT_PROPOSAL : ACLMessage.REJECT_PROPOSAL, null);
                        acceptances.addElement(a);
                        c.note(p.getSender().getLocalName(), yes ? "(accept-proposal)" : "(reject-proposal)");
                    }
                }

                public int onEnd() {
                    me.finished(c);
                    return super.onEnd();
                }
            };
        case "fipa-propose":
            return new ProposeInitiator(me, m) {
                protected String createConvId(Vector msgs) {
                    String id = super.createConvId(msgs);
                    register(c, id);
                    return id;
                }

                protected void handleAcceptProposal(ACLMessage x) { c.saw(x); }
                protected void handleRejectProposal(ACLMessage x) { c.saw(x); }
                protected void handleNotUnderstood(ACLMessage x) { c.saw(x); }
                protected void handleOutOfSequence(ACLMessage x) { c.saw(x); c.note(x.getSender().getLocalName(), "out-of-sequence"); }

                public int onEnd() {
                    me.finished(c);
                    return super.onEnd();
                }
            };
        case "fipa-subscribe":
            return subscription(me, c, m);
        default:
            throw new IllegalStateException(c.protocol);
        }
    }

    /**
     * A subscription: the initiator cancels each participant whose plan says so after its third
     * notification, with cancel(r, false) (keep: the cancel carries the subscribe's reply-with and
     * the session waits for cancellationCompleted) or cancel(r, true) (ignore: no reply-with, the
     * session is dropped at once). The case ends when every participant refused, failed or was
     * cancelled and nothing came for 150 ms.
     */
    static Behaviour subscription(final Initiator me, final Case c, ACLMessage m) {
        final long[] last = {System.currentTimeMillis()};
        final long start = last[0];
        final SubscriptionInitiator si = new SubscriptionInitiator(me, m) {
            protected String createConvId(Vector msgs) {
                String id = super.createConvId(msgs);
                register(c, id);
                return id;
            }

            protected void handleAgree(ACLMessage x) { c.saw(x); last[0] = System.currentTimeMillis(); }
            protected void handleRefuse(ACLMessage x) { c.saw(x); last[0] = System.currentTimeMillis(); }
            protected void handleFailure(ACLMessage x) { c.saw(x); last[0] = System.currentTimeMillis(); }
            protected void handleNotUnderstood(ACLMessage x) { c.saw(x); last[0] = System.currentTimeMillis(); }

            protected void handleInform(ACLMessage x) {
                last[0] = System.currentTimeMillis();
                String who = x.getSender().getLocalName();
                c.saw(x);
                if (c.cancelled.containsKey(who)) {
                    c.informsAfterCancel.merge(who, 1, Integer::sum);
                    return;
                }
                int k = c.informsBeforeCancel.merge(who, 1, Integer::sum);
                String mode = c.cancel.get(who);
                if (k == 3 && mode != null && !mode.equals("none")) {
                    c.cancelled.put(who, true);
                    c.note(who, mode.equals("ignore") ? "cancel(r,true)" : "cancel(r,false)");
                    cancel(x.getSender(), mode.equals("ignore"));
                }
            }

            protected void handleOutOfSequence(ACLMessage x) {
                last[0] = System.currentTimeMillis();
                String who = x.getSender().getLocalName();
                c.saw(x);
                if (x.getPerformative() == ACLMessage.INFORM && c.cancelled.containsKey(who)) {
                    c.informsAfterCancel.merge(who, 1, Integer::sum); // after cancel(r, true): no session
                } else {
                    c.note(who, "out-of-sequence");
                }
            }
        };
        // the watcher: the case ends when it settles (or after 5 s); then the initiator goes
        return new OneShotBehaviour(me) {
            public void action() {
                me.addBehaviour(si);
                me.addBehaviour(new TickerBehaviour(me, 20) {
                    protected void onTick() {
                        long now = System.currentTimeMillis();
                        boolean settled = true;
                        synchronized (c) {
                            for (String x : c.receivers) {
                                List<String> s = c.seen.getOrDefault(x, Collections.emptyList());
                                boolean over = c.cancelled.containsKey(x) || s.contains("refuse") || s.contains("failure") || s.contains("not-understood");
                                settled &= over;
                            }
                        }
                        if ((settled && now - last[0] > 150) || now - start > 5000) {
                            for (String x : c.receivers) {
                                if ("keep".equals(c.cancel.get(x)) && c.cancelled.containsKey(x)) si.cancellationCompleted(aid(x));
                            }
                            stop();
                        }
                    }

                    public int onEnd() {
                        me.removeBehaviour(si);
                        me.finished(c);
                        return super.onEnd();
                    }
                });
            }
        };
    }

    // ------------------------------------------------------------------ outcomes

    /**
     * The outcome acp-trace should give the conversation, from what its initiator saw: cancelled
     * when it cancelled anyone, else the most telling of the parts, in acp-trace's order (a
     * result before a refusal: done, failed, not-understood, rejected, refused).
     */
    static String outcome(Case c) {
        if (!c.cancelled.isEmpty()) return "cancelled";
        String[] rank = {"done", "failed", "not-understood", "rejected", "refused"};
        int best = rank.length;
        for (String x : c.receivers) {
            String p = part(c, x);
            for (int i = 0; i < rank.length; i++) {
                if (rank[i].equals(p) && i < best) best = i;
            }
        }
        return best < rank.length ? rank[best] : "open";
    }

    /** How one participant's part ended, as the initiator saw it. */
    static String part(Case c, String x) {
        List<String> s = c.seen.getOrDefault(x, Collections.emptyList());
        if (c.cancelled.containsKey(x)) return "cancelled";
        if (s.contains("out-of-sequence")) return "open";
        if (s.contains("refuse")) return "refused";
        if (s.contains("not-understood")) return "not-understood";
        if (s.contains("reject-proposal")) return "rejected";
        if (s.contains("failure")) return "failed";
        if (s.contains("accept-proposal")) return "done";
        if (c.protocol.equals("fipa-contract-net")) {
            if (s.contains("(reject-proposal)")) return "rejected";
            return s.contains("inform") ? "done" : "open";
        }
        if (s.contains("inform")) return "done";
        return "open";
    }

    /** inform,inform,inform as inform*3 */
    static List<String> runs(List<String> l) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < l.size();) {
            int j = i;
            while (j < l.size() && l.get(j).equals(l.get(i))) j++;
            out.add(j - i == 1 ? l.get(i) : l.get(i) + "*" + (j - i));
            i = j;
        }
        return out;
    }

    static void writeOutcomes(File dir) throws Exception {
        try (PrintWriter w = new PrintWriter(new OutputStreamWriter(new FileOutputStream(new File(dir, "outcomes.tsv")), StandardCharsets.UTF_8))) {
            w.println("# file\tconversation_id\tprotocol\tinitiator\toutcome\tparticipants (receiver=its part:what the initiator saw)\tplan (receiver=what it was told to do)\tcopy_delay_ms");
            for (Case c : CASES) {
                StringBuilder p = new StringBuilder();
                synchronized (c) {
                    for (String x : c.receivers) {
                        if (p.length() > 0) p.append(' ');
                        p.append(x).append('=').append(part(c, x)).append(':');
                        List<String> s = runs(c.seen.getOrDefault(x, Collections.emptyList()));
                        p.append(s.isEmpty() ? "nothing" : String.join(",", s));
                    }
                }
                StringBuilder plan = new StringBuilder();
                for (String x : c.receivers) {
                    if (plan.length() > 0) plan.append(' ');
                    plan.append(x).append('=').append(c.act.get(x));
                    if (c.price.containsKey(x)) plan.append("@").append(c.price.get(x));
                    if (c.cancel.containsKey(x)) plan.append("/cancel-").append(c.cancel.get(x));
                }
                if (c.protocol.equals("fipa-contract-net")) plan.append(" accept=").append(c.accept);
                w.println(c.file + "\t" + c.convId + "\t" + c.protocol + "\t" + c.initiator + "\t" + outcome(c) + "\t" + p + "\t" + plan + "\t" + c.copyDelayMs);
            }
        }
    }

    // ------------------------------------------------------------------ main

    static int freePort() throws Exception {
        int want = Integer.getInteger("jade.port", 1099);
        try (ServerSocket s = new ServerSocket(want, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        } catch (Exception e) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
                return s.getLocalPort();
            }
        }
    }

    static void run(ContainerController main, String[] names, List<List<Case>> lists, long timeoutS) throws Exception {
        CountDownLatch done = new CountDownLatch(names.length);
        List<AgentController> started = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            AgentController a = main.acceptNewAgent(names[i], new Initiator(lists.get(i), done));
            a.start();
            started.add(a);
        }
        if (!done.await(timeoutS, TimeUnit.SECONDS)) throw new IllegalStateException("timed out: " + Arrays.toString(names));
        pause(300); // let the last answers arrive
        for (AgentController a : started) a.kill();
    }

    static List<Case> of(String protocol, String initiator) {
        List<Case> l = new ArrayList<>();
        for (Case c : CASES) if (c.protocol.equals(protocol) && c.initiator.equals(initiator)) l.add(c);
        return l;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: Harness DIR");
            System.exit(2);
        }
        File dir = new File(args[0]);
        dir.mkdirs();
        System.setProperty("capture.dir", dir.getPath());
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        cases();
        CaptureService.copyDelay = m -> {
            Case c = caseOf(m);
            return c == null ? 0 : c.copyDelayMs;
        };

        int port = freePort();
        jade.core.Runtime rt = jade.core.Runtime.instance();
        rt.setCloseVM(false);
        Profile p = new ProfileImpl();
        p.setParameter(Profile.MAIN_HOST, "127.0.0.1");
        p.setParameter(Profile.MAIN_PORT, String.valueOf(port));
        p.setParameter(Profile.LOCAL_HOST, "127.0.0.1");
        p.setParameter(Profile.LOCAL_PORT, String.valueOf(port));
        p.setParameter(Profile.GUI, "false");
        p.setParameter(Profile.NO_MTP, "true");
        p.setParameter(Profile.SERVICES, "jade.core.event.NotificationService;CaptureService");
        p.setParameter(Profile.FILE_DIR, dir.getPath() + File.separator); // the AMS writes APDescription.txt
        ContainerController main = rt.createMainContainer(p);
        if (main == null) throw new IllegalStateException("JADE's main container did not start");

        for (String r : RESPONDERS) main.acceptNewAgent(r, new Responder()).start();
        pause(200);

        long t0 = System.currentTimeMillis();
        run(main, new String[] {"alice", "bob", "queen"},
            Arrays.asList(of("fipa-request", "alice"), of("fipa-request", "bob"), of("fipa-request", "queen")), 120);
        run(main, new String[] {"ivan"}, Arrays.asList(of("fipa-query", "ivan")), 120);
        run(main, new String[] {"paul"}, Arrays.asList(of("fipa-contract-net", "paul")), 120);
        run(main, new String[] {"sam"}, Arrays.asList(of("fipa-subscribe", "sam")), 300);
        run(main, new String[] {"alice"}, Arrays.asList(of("fipa-propose", "alice")), 120);
        long t1 = System.currentTimeMillis();

        Map<String, Integer> counts = CaptureService.close();
        writeOutcomes(dir);
        Map<String, Integer> convs = new LinkedHashMap<>();
        for (Case c : CASES) convs.merge(c.file, 1, Integer::sum);
        int total = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            System.out.println(e.getKey() + "\t" + e.getValue() + " messages\t" + convs.getOrDefault(e.getKey(), 0) + " conversations");
            total += e.getValue();
        }
        System.out.println("total\t" + total + " messages\t" + CASES.size() + " conversations\t" + (t1 - t0) + " ms");
        try {
            main.kill();
        } catch (Exception e) {
            // the platform is going down anyway
        }
        System.exit(0);
    }
}
