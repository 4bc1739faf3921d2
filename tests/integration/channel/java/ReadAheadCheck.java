// Read ahead (MQOO_READ_AHEAD) with the IBM MQ classes for Java against `mqk listen` on a
// channel it offers SHARECNV 1: one line per check ("CHECK <name> OK" or "CHECK <name> FAIL
// <why>"), read by test_channel_readahead.py.
// Arguments: host port channel queue count closeQueue browseQueue mixQueue

import com.ibm.mq.MQException;
import com.ibm.mq.MQGetMessageOptions;
import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueue;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.nio.charset.StandardCharsets;
import java.util.Hashtable;

public class ReadAheadCheck extends Checks {

    static MQQueueManager qm;
    static final int BIG = 70_000;  // beyond a segment: an ASYNC_MESSAGE in several

    public static void main(String[] args) throws Exception {
        Hashtable<String, Object> props = ClientProps.of(args[0], args[1], args[2]);
        String queue = args[3];
        int count = Integer.parseInt(args[4]);
        String closeQueue = args[5];
        String browseQueue = args[6];
        String mixQueue = args[7];
        check("connect", () -> qm = new MQQueueManager("QM1", props));
        if (qm == null) return;
        check("read_ahead_once_in_order", () -> {
            // small messages and, every 100th, one larger than a segment
            for (int i = 0; i < count; i++) put(queue, "ra-" + i, i % 100 == 99 ? BIG : 0);
            MQQueue q = qm.accessQueue(queue, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD);
            for (int i = 0; i < count; i++) {
                MQMessage m = new MQMessage();
                q.get(m, gmo(5000));
                String text = text(m);
                int extra = i % 100 == 99 ? BIG : 0;
                if (!text.equals("ra-" + i) || m.getMessageLength() != text.length() + extra) {
                    throw new Exception("message " + i + " was " + text + " of "
                        + m.getMessageLength() + " bytes");
                }
            }
            expectReason(() -> q.get(new MQMessage(), gmo(500)), 2033);  // nothing more
            put(queue, "late", 0);  // a message put after the check still comes
            MQMessage late = new MQMessage();
            q.get(late, gmo(5000));
            if (!text(late).equals("late")) throw new Exception("late: " + text(late));
            q.close();
        });
        check("put_and_get_in_turn", () -> {
            // a put on the connection while its stream waits for the next message
            MQQueue q = qm.accessQueue(queue, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD);
            for (int i = 0; i < 20; i++) {
                put(queue, "turn-" + i, 0);
                MQMessage m = new MQMessage();
                q.get(m, gmo(5000));
                if (!text(m).equals("turn-" + i)) throw new Exception("turn " + i + ": " + text(m));
            }
            q.close();
        });
        check("close_with_messages_read_ahead", () -> {
            // the client holds messages its application never gets: MQCLOSE discards them,
            // the rest (never sent) stays on the queue for the next getter
            for (int i = 0; i < 200; i++) put(closeQueue, "c-" + i, 1000);
            MQQueue q = qm.accessQueue(closeQueue, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD);
            for (int i = 0; i < 3; i++) {
                MQMessage m = new MQMessage();
                q.get(m, gmo(5000));
                if (!text(m).equals("c-" + i)) throw new Exception("message " + i + ": " + text(m));
            }
            q.close();
        });
        check("browse_on_the_channel", () -> {
            for (int i = 0; i < 3; i++) put(browseQueue, "b-" + i, 0);
            // browsed with read ahead too (the client asks REQUEST_MSGS with its browse options)
            MQQueue ra = qm.accessQueue(browseQueue, CMQC.MQOO_BROWSE | CMQC.MQOO_READ_AHEAD);
            MQGetMessageOptions next = gmo(2000);
            next.options |= CMQC.MQGMO_BROWSE_NEXT;
            for (int i = 0; i < 3; i++) {
                MQMessage m = new MQMessage();
                ra.get(m, next);
                if (!text(m).equals("b-" + i)) throw new Exception("read ahead " + text(m));
            }
            expectReason(() -> ra.get(new MQMessage(), next), 2033);
            ra.close();
            MQQueue q = qm.accessQueue(browseQueue, CMQC.MQOO_BROWSE | CMQC.MQOO_INPUT_AS_Q_DEF);
            MQGetMessageOptions browse = gmo(5000);
            browse.options |= CMQC.MQGMO_BROWSE_FIRST;
            for (int i = 0; i < 3; i++) {
                MQMessage m = new MQMessage();
                q.get(m, browse);
                if (!text(m).equals("b-" + i)) throw new Exception("browsed " + text(m));
                browse.options = (browse.options & ~CMQC.MQGMO_BROWSE_FIRST)
                    | CMQC.MQGMO_BROWSE_NEXT;
            }
            for (int i = 0; i < 3; i++) {  // browsing took nothing away
                MQMessage m = new MQMessage();
                q.get(m, gmo(5000));
                if (!text(m).equals("b-" + i)) throw new Exception("got " + text(m));
            }
            q.close();
        });
        check("mixed_msgid_match", () -> {
            // a get matching a MsgId on a handle whose read ahead has begun (the message was
            // sent ahead already), then plain gets
            byte[][] ids = new byte[10][];
            for (int i = 0; i < 10; i++) ids[i] = put(mixQueue, "id-" + i, 0);
            MQQueue q = qm.accessQueue(mixQueue, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD);
            StringBuilder got = new StringBuilder(getText(q, gmo(5000)));
            MQMessage m = new MQMessage();
            m.messageId = ids[5];
            MQGetMessageOptions match = gmo(5000);
            match.matchOptions = CMQC.MQMO_MATCH_MSG_ID;
            got.append(' ').append(outcome(() -> { q.get(m, match); return text(m); }));
            for (int i = 0; i < 9; i++) got.append(' ').append(outcome(() -> getText(q, gmo(2000))));
            q.close();
            System.out.println("MIXED msgid " + got);
            String want = "id-0 id-5 id-1 id-2 id-3 id-4 id-6 id-7 id-8 id-9 2033";
            if (!got.toString().equals(want)) throw new Exception(got + ", wanted " + want);
        });
        check("mixed_msgid_beyond_the_window", () -> {
            // the MsgId matched is one the listener has not sent yet: the window is full of
            // messages the application has not got
            int n = 300;
            byte[][] ids = new byte[n][];
            for (int i = 0; i < n; i++) ids[i] = put(mixQueue, "w-" + i, 1000);
            MQQueue q = qm.accessQueue(mixQueue, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD);
            StringBuilder got = new StringBuilder(getText(q, gmo(5000)));
            MQMessage m = new MQMessage();
            m.messageId = ids[250];
            MQGetMessageOptions match = gmo(5000);
            match.matchOptions = CMQC.MQMO_MATCH_MSG_ID;
            got.append(' ').append(outcome(() -> { q.get(m, match); return text(m); }));
            StringBuilder want = new StringBuilder("w-0 w-250");
            for (int i = 1; i < n; i++) {
                if (i == 250) continue;
                want.append(" w-").append(i);
                got.append(' ').append(outcome(() -> getText(q, gmo(2000))));
            }
            want.append(" 2033");
            got.append(' ').append(outcome(() -> getText(q, gmo(2000))));
            q.close();
            System.out.println("MIXED beyond " + got);
            if (!got.toString().equals(want.toString())) throw new Exception(got.toString());
        });
        check("mixed_syncpoint", () -> {
            // a get under syncpoint on a handle whose read ahead has begun: the client refuses
            // it itself (2046, options error, as MQ documents), then the rest read ahead
            for (int i = 0; i < 6; i++) put(mixQueue, "sp-" + i, 0);
            MQQueue q = qm.accessQueue(mixQueue, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD);
            StringBuilder got = new StringBuilder(getText(q, gmo(5000)));
            MQGetMessageOptions sync = gmo(5000);
            sync.options = CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT;
            got.append(' ').append(outcome(() -> getText(q, sync)));
            qm.commit();
            for (int i = 0; i < 6; i++) got.append(' ').append(outcome(() -> getText(q, gmo(2000))));
            q.close();
            System.out.println("MIXED syncpoint " + got);
            String want = "sp-0 2046 sp-1 sp-2 sp-3 sp-4 sp-5 2033";
            if (!got.toString().equals(want)) throw new Exception(got + ", wanted " + want);
        });
        check("syncpoint_first", () -> {
            // the first get under syncpoint: the client asks a message at a time (REQUEST_MSGS
            // for 1 byte), each got in the unit of work: a backout puts it back
            for (int i = 0; i < 4; i++) put(mixQueue, "fs-" + i, 0);
            MQQueue q = qm.accessQueue(mixQueue, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD);
            MQGetMessageOptions sync = gmo(5000);
            sync.options = CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT;
            StringBuilder got = new StringBuilder(getText(q, sync));
            qm.backout();
            for (int i = 0; i < 3; i++) got.append(' ').append(outcome(() -> getText(q, sync)));
            got.append(' ').append(outcome(() -> getText(q, gmo(2000))));
            qm.commit();
            got.append(' ').append(outcome(() -> getText(q, gmo(2000))));
            q.close();
            System.out.println("MIXED syncpoint_first " + got);
            String want = "fs-0 fs-0 fs-1 fs-2 fs-3 2033";  // fs-0 backed out, then got again
            if (!got.toString().equals(want)) throw new Exception(got + ", wanted " + want);
        });
        check("disconnect", () -> qm.disconnect());
    }

    static MQGetMessageOptions gmo(int wait) {
        MQGetMessageOptions gmo = new MQGetMessageOptions();
        gmo.options = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT;
        gmo.waitInterval = wait;
        return gmo;
    }

    interface Got { String run() throws Exception; }

    // the text got, or the reason code the get failed with
    static String outcome(Got call) throws Exception {
        try {
            return call.run();
        } catch (MQException e) {
            return String.valueOf(e.reasonCode);
        }
    }

    static String getText(MQQueue q, MQGetMessageOptions gmo) throws Exception {
        MQMessage m = new MQMessage();
        q.get(m, gmo);
        return text(m);
    }

    static byte[] put(String queue, String text, int extra) throws Exception {
        return put(qm, queue, text, extra);
    }

}
