// One connection of the IBM MQ classes for Java that puts 3 messages and gets 2, then stays
// connected until the test has read its counters (DISPLAY CHSTATUS's, from `mqk listen
// --status`): the test creates the file `done` names. Read by test_channel_java.py.
// Arguments: host port channel queue done

import com.ibm.mq.MQGetMessageOptions;
import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueue;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Hashtable;

public class CountersCheck {
    public static void main(String[] args) throws Exception {
        Hashtable<String, Object> props = ClientProps.of(args[0], args[1], args[2]);
        Path done = Path.of(args[4]);
        try {
            MQQueueManager qm = new MQQueueManager("QM1", props);
            MQQueue q = qm.accessQueue(args[3], CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT);
            byte[] data = new byte[1000];
            Arrays.fill(data, (byte) 'x');
            for (int n = 0; n < 3; n++) {
                MQMessage m = new MQMessage();
                m.write(data);
                MQPutMessageOptions pmo = new MQPutMessageOptions();
                pmo.options = CMQC.MQPMO_NO_SYNCPOINT;
                q.put(m, pmo);
            }
            for (int n = 0; n < 2; n++) {
                MQGetMessageOptions gmo = new MQGetMessageOptions();
                gmo.options = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT;
                gmo.waitInterval = 10_000;
                q.get(new MQMessage(), gmo);
            }
            System.out.println("CHECK counted OK");
            System.out.flush();
            long until = System.currentTimeMillis() + 120_000;
            while (!Files.exists(done) && System.currentTimeMillis() < until) Thread.sleep(100);
            q.close();
            qm.disconnect();
            System.out.println("CHECK disconnect OK");
        } catch (Throwable error) {
            System.out.println("CHECK counted FAIL " + String.valueOf(error).replace('\n', ' '));
        }
    }
}
