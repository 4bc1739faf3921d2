// MQPUT and MQGET per second through `mqk listen` with IBM's MQ classes for Java.
// Arguments: host port queue count size. Prints "PUT <rate>" and "GET <rate>".

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
        MQQueueManager qm = new MQQueueManager("QM1", props);
        MQQueue q = qm.accessQueue(args[2], CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT);
        MQPutMessageOptions pmo = new MQPutMessageOptions();
        pmo.options = CMQC.MQPMO_NO_SYNCPOINT;
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            MQMessage m = new MQMessage();
            m.persistence = CMQC.MQPER_NOT_PERSISTENT;
            m.write(body);
            q.put(m, pmo);
        }
        System.out.printf("PUT %.1f%n", n / ((System.nanoTime() - start) / 1e9));
        MQGetMessageOptions gmo = new MQGetMessageOptions();
        gmo.options = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT;
        gmo.waitInterval = 10_000;
        start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            MQMessage m = new MQMessage();
            q.get(m, gmo);
        }
        System.out.printf("GET %.1f%n", n / ((System.nanoTime() - start) / 1e9));
        q.close();
        qm.disconnect();
    }
}
