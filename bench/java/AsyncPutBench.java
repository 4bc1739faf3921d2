// Asynchronous MQPUT (MQPMO_ASYNC_RESPONSE) rounds through `mqk listen` with IBM's MQ classes
// for Java, one round each time the bench asks, so its rounds alternate with the Python MQI's.
// Arguments: host port channel queue size warmup. Bodies: 1,024 random ones of `size` bytes,
// taken in turn (nothing a compressing producer could fold). After `warmup` untimed puts and
// an MQSTAT it prints "READY"; then each stdin line "PUT <count> <persistence>" is a round:
// `count` async puts, then getAsyncStatus (MQSTAT: the listener answers it once it has done
// every put before it), printed as "APUT <rate> <from epoch ms> <to epoch ms> <ok> <failed>".
// "END" (or the end of stdin) closes and disconnects.

import com.ibm.mq.MQAsyncStatus;
import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueue;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Hashtable;
import java.util.Random;

public class AsyncPutBench {
    public static void main(String[] args) throws Exception {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(CMQC.HOST_NAME_PROPERTY, args[0]);
        props.put(CMQC.PORT_PROPERTY, Integer.parseInt(args[1]));
        props.put(CMQC.CHANNEL_PROPERTY, args[2]);
        props.put(CMQC.TRANSPORT_PROPERTY, CMQC.TRANSPORT_MQSERIES_CLIENT);
        int size = Integer.parseInt(args[4]);
        int warmup = Integer.parseInt(args[5]);
        byte[][] bodies = new byte[1024][size];
        Random random = new Random();
        for (byte[] body : bodies) random.nextBytes(body);
        MQQueueManager qm = new MQQueueManager("QM1", props);
        MQQueue q = qm.accessQueue(args[3], CMQC.MQOO_OUTPUT);
        MQPutMessageOptions pmo = new MQPutMessageOptions();
        pmo.options = CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE;
        puts(q, pmo, bodies, warmup, CMQC.MQPER_NOT_PERSISTENT);
        qm.getAsyncStatus();
        System.out.println("READY");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line = in.readLine(); line != null && !line.equals("END"); line = in.readLine()) {
            String[] words = line.split(" ");
            int n = Integer.parseInt(words[1]);
            int persistence = Integer.parseInt(words[2]);
            long began = System.currentTimeMillis();
            long start = System.nanoTime();
            puts(q, pmo, bodies, n, persistence);
            MQAsyncStatus status = qm.getAsyncStatus();
            double rate = n / ((System.nanoTime() - start) / 1e9);
            System.out.printf("APUT %.1f %d %d %d %d%n", rate, began, System.currentTimeMillis(),
                status.putSuccessCount, status.putFailureCount);
            System.out.flush();
        }
        q.close();
        qm.disconnect();
    }

    static void puts(MQQueue q, MQPutMessageOptions pmo, byte[][] bodies, int n, int persistence)
            throws Exception {
        for (int i = 0; i < n; i++) {
            MQMessage m = new MQMessage();
            m.persistence = persistence;
            m.write(bodies[i & 1023]);
            q.put(m, pmo);
        }
    }
}
