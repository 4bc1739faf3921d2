// MQPUT and MQGET per second through `mqk listen` with IBM's MQ classes for Java.
// Arguments: host port queue count size warmup rounds. The first `warmup` puts and gets are
// not timed (the JIT compiles the client meanwhile; the Python side gets the same). Prints, for
// each of `rounds` rounds, "PUT <rate>", "GET <rate>" and "INQ <rate>" (MQINQ of the queue
// type: a round trip that does no MQI work, the floor of a verb through the listener).

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
        int warmup = args.length > 5 ? Integer.parseInt(args[5]) : 0;
        int rounds = args.length > 6 ? Integer.parseInt(args[6]) : 1;
        MQQueueManager qm = new MQQueueManager("QM1", props);
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
