// Asynchronous put (MQPMO_ASYNC_RESPONSE) with the IBM MQ classes for Java against `mqk listen`
// on a channel it offers SHARECNV 1: one line per check ("CHECK <name> OK" or
// "CHECK <name> FAIL <why>"), and "MSGID <i> <hex>" for each async put's MsgId as the client
// returned it, read by test_channel_asyncput.py.
// Arguments: host port channel queue count inhibitedQueue

import com.ibm.mq.MQAsyncStatus;
import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueue;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.nio.charset.StandardCharsets;
import java.util.Hashtable;

public class AsyncPutCheck extends Checks {

    static MQQueueManager qm;

    public static void main(String[] args) throws Exception {
        Hashtable<String, Object> props = ClientProps.of(args[0], args[1], args[2]);
        String queue = args[3];
        int count = Integer.parseInt(args[4]);
        String inhibited = args[5];
        check("connect", () -> qm = new MQQueueManager("QM1", props));
        if (qm == null) return;
        check("async_put", () -> {
            MQQueue q = qm.accessQueue(queue, CMQC.MQOO_OUTPUT);
            for (int i = 0; i < count; i++) {
                MQMessage m = message("async-" + i);
                q.put(m, options(CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE));
                System.out.println("MSGID " + i + " " + hex(m.messageId));
            }
            expectStatus(qm.getAsyncStatus(), count, 0, 0);
            q.close();
        });
        check("async_put1_syncpoint", () -> {
            // MQPUT1 asynchronously, under syncpoint: nothing shows before the MQCMIT
            qm.put(queue, message("put1-a"),
                options(CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE));
            qm.put(queue, message("put1-b"),
                options(CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE));
            qm.commit();
            expectStatus(qm.getAsyncStatus(), 2, 0, 0);
        });
        check("async_put_inhibited", () -> {
            MQQueue q = qm.accessQueue(inhibited, CMQC.MQOO_OUTPUT);
            for (int i = 0; i < 3; i++) {  // each returns at once, CC 0: the failure comes later
                q.put(message("refused-" + i),
                    options(CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE));
            }
            MQAsyncStatus status = qm.getAsyncStatus();
            expectStatus(status, 0, 3, 2051);
            if (!status.objectName.trim().equals(inhibited)) {
                throw new Exception("object " + status.objectName.trim());
            }
            expectStatus(qm.getAsyncStatus(), 0, 0, 0);  // told once: the counts start again
            q.close();
        });
        check("sync_on_the_same_channel", () -> {
            MQQueue q = qm.accessQueue(queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF);
            q.put(message("sync"), options(CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_SYNC_RESPONSE));
            expectReason(() -> qm.accessQueue("NO.SUCH.QUEUE.ANYWHERE", CMQC.MQOO_OUTPUT), 2085);
            q.close();
        });
        check("disconnect", () -> qm.disconnect());
        check("async_then_disconnect", () -> {
            // no MQSTAT: the puts the listener has still to do come before the MQDISC
            MQQueueManager other = new MQQueueManager("QM1", props);
            MQQueue q = other.accessQueue(queue + ".DISC", CMQC.MQOO_OUTPUT);
            for (int i = 0; i < 100; i++) {
                q.put(message("last-" + i),
                    options(CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE));
            }
            other.disconnect();  // the queue left open: MQDISC closes it
        });
    }

    static MQMessage message(String text) throws Exception {
        MQMessage m = new MQMessage();
        m.format = CMQC.MQFMT_STRING;
        m.characterSet = 1208;
        m.write(text.getBytes(StandardCharsets.UTF_8));
        return m;
    }

    static MQPutMessageOptions options(int options) {
        MQPutMessageOptions pmo = new MQPutMessageOptions();
        pmo.options = options;
        return pmo;
    }

    static void expectStatus(MQAsyncStatus s, int ok, int failed, int reason) throws Exception {
        if (s.putSuccessCount != ok || s.putFailureCount != failed || s.reasonCode != reason
                || s.completionCode != (failed > 0 ? 2 : 0)) {
            throw new Exception("status cc " + s.completionCode + " rc " + s.reasonCode
                + " succeeded " + s.putSuccessCount + " failed " + s.putFailureCount
                + ", wanted " + ok + "/" + failed + " rc " + reason);
        }
    }

    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) out.append(String.format("%02x", b));
        return out.toString();
    }
}
