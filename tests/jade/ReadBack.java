// Reads two captures in FIPA's string form with JADE's own parser (jade.lang.acl.ACLParser) and
// compares them message by message, field by field, as JADE sees them: the original capture and
// what came back from a trip through acp-convert.
//
//   java -cp $JADE_CLASSES:BUILD ReadBack ORIGINAL CONVERTED [LABEL]
//
// Prints one line per difference, tab-separated:
//   LABEL<TAB>MESSAGE#<TAB>ORIGINAL-LINE<TAB>FIELD<TAB>BEFORE<TAB>AFTER
// (LABEL defaults to the original's file name; MESSAGE# counts from 1 in the original)
// (values in Java string notation, \n for a newline), then a summary line on stderr. A message
// that acp-convert dropped (or added) is a difference of the field "message". Exit status 0 when
// every message reads back the same, 1 when some differ, 2 when a file cannot be read or parsed.
// Not part of acp-tools: test harness only (tests/jade/readback).

import jade.core.AID;
import jade.lang.acl.ACLMessage;
import jade.lang.acl.ACLParser;
import jade.lang.acl.ACLParserConstants;
import jade.lang.acl.ParseException;
import jade.lang.acl.ISO8601;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

public class ReadBack {
    static final class Parsed {
        final ACLMessage msg;
        final int line;

        Parsed(ACLMessage msg, int line) {
            this.msg = msg;
            this.line = line;
        }
    }

    /** Every message of a file, read the way JADE reads a stream: one Message() after another. */
    static List<Parsed> read(String path) throws IOException {
        String text = new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
        ACLParser p = new ACLParser(new StringReader(text));
        List<Parsed> out = new ArrayList<>();
        while (true) {
            try {
                jade.lang.acl.Token next = p.getToken(1); // peek: the message's "(" (or the end)
                if (next.kind == ACLParserConstants.EOF) break;
                int line = next.beginLine;
                ACLMessage m = p.Message();
                out.add(new Parsed((ACLMessage) m.clone(), line));
            } catch (ParseException e) {
                throw new IOException(path + ": JADE cannot parse message " + (out.size() + 1) + ": " + e.getMessage().split("\n")[0]);
            } catch (jade.lang.acl.TokenMgrError e) {
                throw new IOException(path + ": JADE cannot read message " + (out.size() + 1) + ": " + e.getMessage());
            }
        }
        return out;
    }

    static String aid(AID a) {
        if (a == null) return null;
        StringBuilder b = new StringBuilder(a.getName() == null ? "" : a.getName());
        String[] addr = a.getAddressesArray();
        if (addr.length > 0) b.append(" addresses=").append(String.join(",", addr));
        AID[] res = a.getResolversArray();
        for (AID r : res) b.append(" resolver=").append(aid(r));
        Properties u = a.getAllUserDefinedSlot();
        if (u != null && !u.isEmpty()) b.append(" slots=").append(new TreeMap<>(u));
        return b.toString();
    }

    static String aids(Iterator it) {
        List<String> l = new ArrayList<>();
        while (it.hasNext()) l.add(aid((AID) it.next()));
        return l.isEmpty() ? null : String.join(" | ", l);
    }

    /** The fields of a message as JADE holds them. */
    static Map<String, String> fields(ACLMessage m) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("performative", ACLMessage.getPerformative(m.getPerformative()));
        f.put("sender", aid(m.getSender()));
        f.put("receiver", aids(m.getAllReceiver()));
        f.put("reply-to", aids(m.getAllReplyTo()));
        f.put("content", m.hasByteSequenceContent() ? "bytes:" + new String(m.getByteSequenceContent(), StandardCharsets.ISO_8859_1) : m.getContent());
        f.put("reply-with", m.getReplyWith());
        f.put("in-reply-to", m.getInReplyTo());
        f.put("encoding", m.getEncoding());
        f.put("language", m.getLanguage());
        f.put("ontology", m.getOntology());
        f.put("reply-by", m.getReplyByDate() == null ? null : ISO8601.toString(m.getReplyByDate()));
        f.put("protocol", m.getProtocol());
        f.put("conversation-id", m.getConversationId());
        Properties u = m.getAllUserDefinedParameters();
        if (u != null) {
            for (Map.Entry<Object, Object> e : new TreeMap<>(u).entrySet()) f.put("user:" + e.getKey(), String.valueOf(e.getValue()));
        }
        return f;
    }

    static String key(ACLMessage m) {
        return m.getPerformative() + " " + aid(m.getSender()) + " " + aids(m.getAllReceiver()) + " " + m.getConversationId() + " " + m.getInReplyTo();
    }

    static String q(String s) {
        if (s == null) return "(none)";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
            case '\\': b.append("\\\\"); break;
            case '"': b.append("\\\""); break;
            case '\n': b.append("\\n"); break;
            case '\r': b.append("\\r"); break;
            case '\t': b.append("\\t"); break;
            default: b.append(c);
            }
        }
        return b.append('"').toString();
    }

    public static void main(String[] args) {
        if (args.length != 2 && args.length != 3) {
            System.err.println("usage: ReadBack ORIGINAL CONVERTED [LABEL]");
            System.exit(2);
        }
        List<Parsed> a, b;
        try {
            a = read(args[0]);
            b = read(args[1]);
        } catch (IOException e) {
            System.err.println("ReadBack: " + e.getMessage());
            System.exit(2);
            return;
        }
        String name = args.length == 3 ? args[2] : Paths.get(args[0]).getFileName().toString();
        int diffs = 0, differing = 0, same = 0;
        int i = 0, j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && key(a.get(i).msg).equals(key(b.get(j).msg))) {
                Map<String, String> fa = fields(a.get(i).msg), fb = fields(b.get(j).msg);
                Map<String, String> all = new LinkedHashMap<>(fa);
                for (String k : fb.keySet()) all.putIfAbsent(k, null);
                int d = 0;
                for (String k : all.keySet()) {
                    String x = fa.get(k), y = fb.get(k);
                    if (x == null ? y != null : !x.equals(y)) {
                        System.out.println(name + "\t" + (i + 1) + "\t" + a.get(i).line + "\t" + k + "\t" + q(x) + "\t" + q(y));
                        d++;
                    }
                }
                diffs += d;
                if (d > 0) differing++;
                else same++;
                i++;
                j++;
                continue;
            }
            // out of step: a message missing on one side (look a little ahead on the other)
            int ahead = -1;
            for (int k = j + 1; i < a.size() && k < Math.min(b.size(), j + 8); k++) {
                if (key(a.get(i).msg).equals(key(b.get(k).msg))) {
                    ahead = k;
                    break;
                }
            }
            if (ahead >= 0 || i >= a.size()) {
                System.out.println(name + "\t-\t-\tmessage\t(none)\t" + q(key(b.get(j).msg)));
                j++;
            } else {
                System.out.println(name + "\t" + (i + 1) + "\t" + a.get(i).line + "\tmessage\t" + q(key(a.get(i).msg)) + "\t(none)");
                i++;
            }
            diffs++;
            differing++;
        }
        System.err.println("ReadBack: " + name + ": " + a.size() + " messages, " + b.size() + " read back; " + same
            + " the same, " + differing + " different (" + diffs + " differences)");
        System.exit(diffs == 0 ? 0 : 1);
    }
}
