// MQPUT and MQGET per second through `mqk listen` with IBM's MQ classes for Java.
// Arguments: host port queue count size warmup rounds [asyncChannel]. The first `warmup` puts
// and gets are not timed (the JIT compiles the client meanwhile; the Python side gets the
// same). Prints, for each of `rounds` rounds, "PUT <rate>", "GET <rate>" and "INQ <rate>" (MQINQ
// of the queue type: a round trip that does no MQI work, the floor of a verb through the
// listener). With asyncChannel (a channel the listener offers SHARECNV 1), also "APUT <rate>":
// puts with MQPMO_ASYNC_RESPONSE on a second connection, timed up to the answer of the
// getAsyncStatus (MQSTAT) that follows them: the listener answers it after it has done every
// put before it, so the rate is the listener's, not only the client's sending. Then "ASTATUS
// <ok> <failed>" and "AWINDOW <from> <to>" (epoch ms: the bench reads the processes' CPU time
// in it), and the messages are got back (untimed) on the first connection.

import com.ibm.mq.MQAsyncStatus;
import com.ibm.mq.MQGetMessageOptions;
import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueue;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.util.Hashtable;

public class ChannelBench {
    public static void main(String[] args) throws Exception {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(CMQC.HOST_NAME_PROPERTY, args[0]);
        props.put(CMQC.PORT_PROPERTY, Integer.parseInt(args[1]));
        props.put(CMQC.CHANNEL_PROPERTY, "DEV.APP.SVRCONN");
        props.put(CMQC.TRANSPORT_PROPERTY, CMQC.TRANSPORT_MQSERIES_CLIENT);
        int n = Integer.parseInt(args[3]);
        byte[] body = new byte[Integer.parseInt(args[4])];
        new java.util.Random(1).nextBytes(body); // a body that does not compress
        int warmup = args.length > 5 ? Integer.parseInt(args[5]) : 0;
        int rounds = args.length > 6 ? Integer.parseInt(args[6]) : 1;
        MQQueueManager qm = new MQQueueManager("QM1", props);
        MQQueueManager aqm = null;
        MQQueue aq = null;
        if (args.length > 7) {
            Hashtable<String, Object> aprops = new Hashtable<>(props);
            aprops.put(CMQC.CHANNEL_PROPERTY, args[7]);
            aqm = new MQQueueManager("QM1", aprops);
            aq = aqm.accessQueue(args[2], CMQC.MQOO_OUTPUT);
        }
        MQPutMessageOptions apmo = new MQPutMessageOptions();
        apmo.options = CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE;
        MQQueue q = qm.accessQueue(
            args[2], CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE);
        MQPutMessageOptions pmo = new MQPutMessageOptions();
        pmo.options = CMQC.MQPMO_NO_SYNCPOINT;
        MQGetMessageOptions gmo = new MQGetMessageOptions();
        gmo.options = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT;
        gmo.waitInterval = 10_000;
        puts(q, pmo, body, warmup);
        gets(q, gmo, warmup);
        for (int i = 0; i < warmup; i++) q.getQueueType();
        if (aq != null) {
            puts(aq, apmo, body, warmup);
            aqm.getAsyncStatus();
            gets(q, gmo, warmup);
        }
        for (int round = 0; round < rounds; round++) {
            long start = System.nanoTime();
            puts(q, pmo, body, n);
            System.out.printf("PUT %.1f%n", n / ((System.nanoTime() - start) / 1e9));
            start = System.nanoTime();
            gets(q, gmo, n);
            System.out.printf("GET %.1f%n", n / ((System.nanoTime() - start) / 1e9));
            start = System.nanoTime();
            for (int i = 0; i < n; i++) q.getQueueType();
            System.out.printf("INQ %.1f%n", n / ((System.nanoTime() - start) / 1e9));
            if (aq != null) {
                long began = System.currentTimeMillis();
                start = System.nanoTime();
                puts(aq, apmo, body, n);
                MQAsyncStatus status = aqm.getAsyncStatus();
                System.out.printf("APUT %.1f%n", n / ((System.nanoTime() - start) / 1e9));
                System.out.printf("AWINDOW %d %d%n", began, System.currentTimeMillis());
                System.out.printf("ASTATUS %d %d%n", status.putSuccessCount, status.putFailureCount);
                gets(q, gmo, n);
            }
        }
        if (aq != null) {
            aq.close();
            aqm.disconnect();
        }
        q.close();
        qm.disconnect();
    }

    static void puts(MQQueue q, MQPutMessageOptions pmo, byte[] body, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            MQMessage m = new MQMessage();
            m.persistence = CMQC.MQPER_NOT_PERSISTENT;
            m.write(body);
            q.put(m, pmo);
        }
    }

    static void gets(MQQueue q, MQGetMessageOptions gmo, int n) throws Exception {
        for (int i = 0; i < n; i++) q.get(new MQMessage(), gmo);
    }
}
