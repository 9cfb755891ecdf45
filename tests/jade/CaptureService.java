// A JADE platform service that captures every ACL message as it is sent.
//
// Agent.send is final, so the capture sits where every send goes through: the outgoing filter
// chain of the container, which gets one Send-Message vertical command per receiver, in the
// sender's thread, before the message is delivered. The filter writes ACLMessage.toString() (the
// string form, as JADE writes it, over several lines) followed by a newline to the capture file
// chosen by the message's :protocol, once per message (a message with several receivers gives
// several Send-Message commands: the first one writes it).
//
// Two delays stand for a slow network; they change when JADE's agents run, not what they send:
//   capture.copyDelayMs    after an opening copy (cfp, request, query-if, query-ref, subscribe,
//                          propose answering nothing) is delivered, its sender waits this long
//                          before its next send, so that a responder that answers at once may
//                          answer before the next copy goes (default 3; the harness sets it
//                          per conversation through copyDelay: none for a third of them)
//   capture.cancelDelayMs  a cancel is written when it is sent and delivered this much later, so
//                          that a responder that notifies often sends notifications that cross it
//                          (default 30)
//
// Configured with system properties: capture.dir (the directory of the capture files, required).
// Not part of acp-tools: test harness only (tests/jade/run).

import jade.core.AID;
import jade.core.BaseService;
import jade.core.Filter;
import jade.core.VerticalCommand;
import jade.core.messaging.GenericMessage;
import jade.core.messaging.MessagingSlice;
import jade.lang.acl.ACLMessage;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

public class CaptureService extends BaseService {
    public static final String NAME = "acp-tools-capture";

    private static final Map<String, Writer> writers = new LinkedHashMap<>();
    private static final Map<String, Integer> counts = new LinkedHashMap<>();
    private static File dir;
    private static boolean closed;
    private static int late;
    private static long copyDelayMs = Long.getLong("capture.copyDelayMs", 3);
    /** The delay after an opening copy, by message (the harness sets it per conversation). */
    public static volatile java.util.function.ToLongFunction<ACLMessage> copyDelay = m -> copyDelayMs;
    private static long cancelDelayMs = Long.getLong("capture.cancelDelayMs", 30);

    private final Filter outgoing = new CaptureFilter();

    public String getName() {
        return NAME;
    }

    public Filter getCommandFilter(boolean direction) {
        return direction == Filter.OUTGOING ? outgoing : null;
    }

    /** The capture file a message goes to: by its protocol. */
    static String fileFor(ACLMessage msg) {
        String p = msg.getProtocol();
        if (p == null) return "other.acl";
        switch (p) {
        case "fipa-request": return "request.acl";
        case "fipa-query": return "query.acl";
        case "fipa-contract-net": return "contract-net.acl";
        case "fipa-subscribe": return "subscribe.acl";
        case "fipa-propose": return "propose.acl";
        default: return "other.acl";
        }
    }

    static synchronized void write(ACLMessage msg) {
        if (closed) {
            late++; // sent while the platform shuts down, after the captures were closed
            return;
        }
        try {
            if (dir == null) {
                String d = System.getProperty("capture.dir");
                if (d == null) throw new IllegalStateException("capture.dir is not set");
                dir = new File(d);
            }
            String f = fileFor(msg);
            Writer w = writers.get(f);
            if (w == null) {
                w = new OutputStreamWriter(new FileOutputStream(new File(dir, f)), StandardCharsets.UTF_8);
                writers.put(f, w);
                counts.put(f, 0);
            }
            w.write(msg.toString());
            w.write("\n");
            w.flush();
            counts.put(f, counts.get(f) + 1);
        } catch (IOException e) {
            throw new RuntimeException("capture: " + e, e);
        }
    }

    /** Closes the capture files; returns the number of messages written to each. */
    public static synchronized Map<String, Integer> close() {
        for (Writer w : writers.values()) {
            try {
                w.close();
            } catch (IOException e) {
                System.err.println("capture: " + e);
            }
        }
        writers.clear();
        closed = true;
        return new LinkedHashMap<>(counts);
    }

    /** The number of messages sent after close(). */
    public static synchronized int late() {
        return late;
    }

    static boolean isOpening(ACLMessage msg) {
        if (msg.getInReplyTo() != null) return false;
        switch (msg.getPerformative()) {
        case ACLMessage.CFP:
        case ACLMessage.REQUEST:
        case ACLMessage.QUERY_IF:
        case ACLMessage.QUERY_REF:
        case ACLMessage.SUBSCRIBE:
        case ACLMessage.PROPOSE:
            return true;
        default:
            return false;
        }
    }

    private static void sleep(long ms) {
        if (ms <= 0) return;
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static class CaptureFilter extends Filter {
        CaptureFilter() {
            setPreferredPosition(1); // before the messaging service's own filters
        }

        private static boolean first(VerticalCommand cmd, ACLMessage msg) {
            Object receiver = cmd.getParams().length > 2 ? cmd.getParams()[2] : null;
            Iterator it = msg.getAllIntendedReceiver();
            return !it.hasNext() || receiver == null || ((AID) it.next()).equals(receiver);
        }

        private static ACLMessage messageOf(VerticalCommand cmd) {
            if (!MessagingSlice.SEND_MESSAGE.equals(cmd.getName())) return null;
            Object[] params = cmd.getParams();
            if (params.length < 2 || !(params[1] instanceof GenericMessage)) return null;
            return ((GenericMessage) params[1]).getACLMessage();
        }

        protected boolean accept(VerticalCommand cmd) {
            ACLMessage msg = messageOf(cmd);
            if (msg != null && first(cmd, msg)) {
                write(msg);
                if (msg.getPerformative() == ACLMessage.CANCEL) sleep(cancelDelayMs);
            }
            return true;
        }

        protected void postProcess(VerticalCommand cmd) {
            ACLMessage msg = messageOf(cmd);
            if (msg != null && isOpening(msg)) sleep(copyDelay.applyAsLong(msg));
        }
    }
}
