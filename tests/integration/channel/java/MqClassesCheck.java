// Scenarios of the IBM MQ classes for Java against `mqk listen`: one JVM, one line per check
// ("CHECK <name> OK" or "CHECK <name> FAIL <why>"), read by test_channel_java.py.
// Arguments: host port queue pyToJavaQueue javaToPyQueue

import com.ibm.mq.MQException;
import com.ibm.mq.MQGetMessageOptions;
import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueue;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Hashtable;

public class MqClassesCheck extends Checks {

    static Hashtable<String, Object> props;
    static MQQueueManager qm;
    static String queue;

    public static void main(String[] args) throws Exception {
        props = ClientProps.of(args[0], args[1], "DEV.APP.SVRCONN");
        queue = args[2];
        check("connect", () -> qm = new MQQueueManager("QM1", props));
        if (qm == null) return;
        check("putget", () -> {
            MQQueue q = open(queue);
            put(q, "hello", null, CMQC.MQPMO_NO_SYNCPOINT);
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, null), "hello");
            q.close();
        });
        check("browse", () -> {
            MQQueue q = open(queue);
            put(q, "b1", null, CMQC.MQPMO_NO_SYNCPOINT);
            put(q, "b2", null, CMQC.MQPMO_NO_SYNCPOINT);
            expect(get(q, CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_WAIT, null), "b1");
            expect(get(q, CMQC.MQGMO_BROWSE_NEXT, null), "b2");
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, null), "b1");
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, null), "b2");
            q.close();
        });
        check("syncpoint", () -> {
            MQQueue q = open(queue);
            put(q, "undone", null, CMQC.MQPMO_SYNCPOINT);
            qm.backout();
            expectReason(() -> get(q, CMQC.MQGMO_NO_SYNCPOINT, null), 2033);
            put(q, "done", null, CMQC.MQPMO_SYNCPOINT);
            qm.commit();
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT, null), "done");
            qm.backout();  // the get is undone: the message is back
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT, null), "done");
            qm.commit();
            q.close();
        });
        check("correlid", () -> {
            MQQueue q = open(queue);
            byte[] first = Arrays.copyOf("CORREL-ONE".getBytes(StandardCharsets.US_ASCII), 24);
            byte[] second = Arrays.copyOf("CORREL-TWO".getBytes(StandardCharsets.US_ASCII), 24);
            put(q, "one", first, CMQC.MQPMO_NO_SYNCPOINT);
            put(q, "two", second, CMQC.MQPMO_NO_SYNCPOINT);
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, second), "two");
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, null), "one");
            q.close();
        });
        check("dynamic", () -> {
            MQQueue q = qm.accessQueue("SYSTEM.DEFAULT.MODEL.QUEUE",
                CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT, null, "JAVA.*", null);
            if (!q.getName().trim().startsWith("JAVA.")) throw new Exception("name " + q.getName());
            put(q, "temp", null, CMQC.MQPMO_NO_SYNCPOINT);
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, null), "temp");
            q.close();
        });
        check("put1", () -> {
            MQMessage m = message("single", null);
            qm.put(queue, m);
            MQQueue q = open(queue);
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, null), "single");
            q.close();
        });
        check("big", () -> {
            char[] text = new char[150_000];
            for (int i = 0; i < text.length; i++) text[i] = (char) ('a' + i % 26);
            String big = new String(text) + "END";
            MQQueue q = open(queue);
            put(q, big, null, CMQC.MQPMO_NO_SYNCPOINT);
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, null), big);
            q.close();
        });
        check("long_wait", () -> {
            // the listener beats while an MQGET waits: the client counts ~5 s of silence as
            // a broken connection (2009) and its later replies fall out of step
            MQQueue q = open(queue);
            MQGetMessageOptions gmo = new MQGetMessageOptions();
            gmo.options = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT;
            gmo.waitInterval = 8_000;
            expectReason(() -> q.get(new MQMessage(), gmo), 2033);
            put(q, "after the wait", null, CMQC.MQPMO_NO_SYNCPOINT);
            expect(get(q, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, null), "after the wait");
            q.close();
        });
        check("unknown2085", () -> expectReason(() -> open("NO.SUCH.QUEUE.ANYWHERE"), 2085));
        check("qmgr2058", () -> expectReason(() -> new MQQueueManager("QMX", props), 2058));
        if (args.length > 4) {
            check("python_exchange", () -> {
                MQQueue in = open(args[3]);
                expect(get(in, CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, null), "from-python");
                in.close();
                MQQueue out = open(args[4]);
                put(out, "from-java", null, CMQC.MQPMO_NO_SYNCPOINT);
                out.close();
            });
        }
        check("disconnect", () -> qm.disconnect());
    }

    static MQQueue open(String name) throws MQException {
        return qm.accessQueue(name, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT
            | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING);
    }

    static MQMessage message(String text, byte[] correlId) throws Exception {
        MQMessage m = new MQMessage();
        m.format = CMQC.MQFMT_STRING;
        m.characterSet = 1208;
        if (correlId != null) m.correlationId = correlId;
        m.write(text.getBytes(StandardCharsets.UTF_8));
        return m;
    }

    static void put(MQQueue q, String text, byte[] correlId, int options) throws Exception {
        MQPutMessageOptions pmo = new MQPutMessageOptions();
        pmo.options = options;
        q.put(message(text, correlId), pmo);
    }

    static String get(MQQueue q, int options, byte[] correlId) throws Exception {
        MQGetMessageOptions gmo = new MQGetMessageOptions();
        gmo.options = options;
        gmo.waitInterval = 10_000;
        MQMessage m = new MQMessage();
        if (correlId != null) {
            gmo.matchOptions = CMQC.MQMO_MATCH_CORREL_ID;
            m.correlationId = correlId;
        }
        q.get(m, gmo);
        byte[] data = new byte[m.getDataLength()];
        m.readFully(data);
        return new String(data, StandardCharsets.UTF_8);
    }

    static void expect(String got, String wanted) throws Exception {
        if (!got.equals(wanted)) {
            String shown = got.length() > 40 ? got.substring(0, 40) + "...(" + got.length() + ")" : got;
            throw new Exception("got '" + shown + "', wanted " + wanted.length() + " chars");
        }
    }

}
