// MQGET per second through `mqk listen` with IBM's MQ classes for Java, with read ahead
// (MQOO_READ_AHEAD on a channel the listener offers SHARECNV 1) and without (one round trip a
// get, on a SHARECNV 0 channel). Arguments: host port readAheadChannel plainChannel queue count
// size warmup rounds. The messages are put first (asynchronously on the plain channel,
// untimed), then got; the first `warmup` of each kind are not timed (the JIT compiles the
// client meanwhile). Prints,
// for each round, "RAGET <rate>" and "GET <rate>", and "ORDER OK" when every message read
// ahead came once and in the order put. Each timed phase also prints "RAWINDOW|WINDOW <from>
// <to>" (epoch ms: the bench reads the listener's CPU time in it) and "RACPU|CPU <us>": this
// JVM's CPU time a get.

import com.ibm.mq.MQGetMessageOptions;
import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueue;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.util.Hashtable;

public class ReadAheadBench {
    public static void main(String[] args) throws Exception {
        String queue = args[4];
        int n = Integer.parseInt(args[5]);
        int size = Integer.parseInt(args[6]);
        int warmup = Integer.parseInt(args[7]);
        int rounds = Integer.parseInt(args[8]);
        MQQueueManager ra = connect(args, args[2]);
        MQQueueManager plain = connect(args, args[3]);
        MQGetMessageOptions gmo = new MQGetMessageOptions();
        gmo.options = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT;
        gmo.waitInterval = 10_000;
        boolean inOrder = true;
        puts(plain, queue, size, warmup);
        inOrder &= gets(ra, queue, CMQC.MQOO_READ_AHEAD, gmo, warmup, null);
        puts(plain, queue, size, warmup);
        gets(plain, queue, CMQC.MQOO_NO_READ_AHEAD, gmo, warmup, null);
        for (int round = 0; round < rounds; round++) {
            puts(plain, queue, size, n);
            long[] took = new long[1];
            long cpu = cpu(), began = System.currentTimeMillis();
            inOrder &= gets(ra, queue, CMQC.MQOO_READ_AHEAD, gmo, n, took);
            System.out.printf("RAGET %.1f%n", n / (took[0] / 1e9));
            System.out.printf("RAWINDOW %d %d%n", began, System.currentTimeMillis());
            System.out.printf("RACPU %.1f%n", (cpu() - cpu) / 1e3 / n);
            puts(plain, queue, size, n);
            cpu = cpu();
            began = System.currentTimeMillis();
            gets(plain, queue, CMQC.MQOO_NO_READ_AHEAD, gmo, n, took);
            System.out.printf("GET %.1f%n", n / (took[0] / 1e9));
            System.out.printf("WINDOW %d %d%n", began, System.currentTimeMillis());
            System.out.printf("CPU %.1f%n", (cpu() - cpu) / 1e3 / n);
        }
        if (inOrder) System.out.println("ORDER OK");
        ra.disconnect();
        plain.disconnect();
    }

    static long cpu() {  // this JVM's CPU time, ns
        return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static MQQueueManager connect(String[] args, String channel) throws Exception {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(CMQC.HOST_NAME_PROPERTY, args[0]);
        props.put(CMQC.PORT_PROPERTY, Integer.parseInt(args[1]));
        props.put(CMQC.CHANNEL_PROPERTY, channel);
        props.put(CMQC.TRANSPORT_PROPERTY, CMQC.TRANSPORT_MQSERIES_CLIENT);
        return new MQQueueManager("QM1", props);
    }

    static void puts(MQQueueManager qm, String queue, int size, int n) throws Exception {
        MQQueue q = qm.accessQueue(queue, CMQC.MQOO_OUTPUT);
        MQPutMessageOptions pmo = new MQPutMessageOptions();
        pmo.options = CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE;
        byte[] body = new byte[size];
        new java.util.Random(1).nextBytes(body); // a body that does not compress
        for (int i = 0; i < n; i++) {
            MQMessage m = new MQMessage();
            m.persistence = CMQC.MQPER_NOT_PERSISTENT;
            m.writeInt(i);
            m.write(body, 0, Math.max(size - 4, 0));
            q.put(m, pmo);
            // answered once every put before it is done: a short wait each (on the SHARECNV 0
            // channel: a busy machine's listener slow through a long run of async puts was
            // taken for a lost connection on the SHARECNV 1 one, whose client beats in a call)
            if (i % 1000 == 999) qm.getAsyncStatus();
        }
        qm.getAsyncStatus();
        q.close();
    }

    // true when the n messages came in the order put (their first int counts up from 0)
    static boolean gets(MQQueueManager qm, String queue, int readAhead, MQGetMessageOptions gmo,
                        int n, long[] took) throws Exception {
        MQQueue q = qm.accessQueue(queue, CMQC.MQOO_INPUT_AS_Q_DEF | readAhead);
        boolean inOrder = true;
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            MQMessage m = new MQMessage();
            q.get(m, gmo);
            if (m.readInt() != i) inOrder = false;
        }
        if (took != null) took[0] = System.nanoTime() - start;
        q.close();
        return inOrder;
    }
}
