// Read ahead and long MQGET waits over TLS on a channel `mqk listen` offers SHARECNV 1, with the
// IBM MQ classes for Java: one line per check ("CHECK <name> OK|FAIL <why>"), read by
// test_channel_tls.py. The key and trust stores are the JVM's javax.net.ssl properties.
// Arguments: host port channel cipher queue count waitQueue

import com.ibm.mq.MQGetMessageOptions;
import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueue;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.nio.charset.StandardCharsets;
import java.util.Hashtable;

public class TlsReadAheadCheck extends Checks {

    static MQQueueManager qm;
    static Hashtable<String, Object> props;
    static final int BIG = 70_000;  // beyond a segment: an ASYNC_MESSAGE in several
    static final int LONG_WAIT = 6000;  // a call well past the client's ~2 s heartbeat patience
    static final int LATE = 4000;  // a message put this long into a wait

    public static void main(String[] args) throws Exception {
        props = ClientProps.tls(args[0], args[1], args[2], args[3]);
        String queue = args[4];
        int count = Integer.parseInt(args[5]);
        String waitQueue = args[6];
        check("tls_connect", () -> qm = new MQQueueManager("QM1", props));
        if (qm == null) return;
        check("tls_read_ahead_beside_calls", () -> {
            // read ahead's flows come while the connection answers this program's puts
            for (int i = 0; i < count; i++) put(qm, queue, "ra-" + i, i % 50 == 49 ? BIG : 0);
            MQQueue q = qm.accessQueue(queue, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD);
            int more = 0;
            for (int i = 0; i < count; i++) {
                MQMessage m = new MQMessage();
                q.get(m, gmo(5000));
                int extra = i % 50 == 49 ? BIG : 0;
                if (!text(m).equals("ra-" + i) || m.getMessageLength() != text(m).length() + extra) {
                    throw new Exception("message " + i + " was " + text(m) + " of "
                        + m.getMessageLength() + " bytes");
                }
                if (i % 10 == 0) put(qm, queue, "more-" + more++, 0);
            }
            for (int i = 0; i < more; i++) {
                MQMessage m = new MQMessage();
                q.get(m, gmo(5000));
                if (!text(m).equals("more-" + i)) throw new Exception("more " + i + ": " + text(m));
            }
            expectReason(() -> q.get(new MQMessage(), gmo(500)), 2033);
            q.close();
        });
        check("tls_long_wait_ends_2033", () -> {
            MQQueue q = qm.accessQueue(waitQueue, CMQC.MQOO_INPUT_AS_Q_DEF);
            expectReason(() -> q.get(new MQMessage(), gmo(LONG_WAIT)), 2033);
            q.close();
        });
        check("tls_long_wait_gets_the_message_put_meanwhile", () -> {
            MQQueue q = qm.accessQueue(waitQueue, CMQC.MQOO_INPUT_AS_Q_DEF);
            Thread putter = putLater(waitQueue, "waited");
            MQMessage m = new MQMessage();
            q.get(m, gmo(LATE + 15_000));
            putter.join();
            if (!text(m).equals("waited")) throw new Exception("got " + text(m));
            q.close();
        });
        check("tls_read_ahead_long_wait", () -> {
            MQQueue q = qm.accessQueue(waitQueue, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD);
            Thread putter = putLater(waitQueue, "waited ahead");
            MQMessage m = new MQMessage();
            q.get(m, gmo(LATE + 15_000));
            putter.join();
            if (!text(m).equals("waited ahead")) throw new Exception("got " + text(m));
            expectReason(() -> q.get(new MQMessage(), gmo(LONG_WAIT)), 2033);
            q.close();
        });
        check("tls_disconnect", () -> qm.disconnect());
    }

    // a message put through a connection of its own LATE ms from now
    static Thread putLater(String queue, String text) {
        Thread thread = new Thread(() -> {
            try {
                Thread.sleep(LATE);
                MQQueueManager other = new MQQueueManager("QM1", props);
                put(other, queue, text, 0);
                other.disconnect();
            } catch (Exception e) {
                System.out.println("putter: " + e);
            }
        });
        thread.start();
        return thread;
    }

    static MQGetMessageOptions gmo(int wait) {
        MQGetMessageOptions gmo = new MQGetMessageOptions();
        gmo.options = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT;
        gmo.waitInterval = wait;
        return gmo;
    }

}
