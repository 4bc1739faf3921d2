// The MQ classes for Java over TLS to `mqk listen --tls-cert --tls-key --tls-ca`: connect
// with a cipher suite and the javax.net.ssl key and trust stores given as system properties,
// put one message. One line per check, as MqClassesCheck. Arguments: host port queue cipher

import com.ibm.mq.MQMessage;
import com.ibm.mq.MQPutMessageOptions;
import com.ibm.mq.MQQueue;
import com.ibm.mq.MQQueueManager;
import com.ibm.mq.constants.CMQC;
import java.nio.charset.StandardCharsets;
import java.util.Hashtable;

public class TlsCheck {
    public static void main(String[] args) {
        Hashtable<String, Object> props =
            ClientProps.tls(args[0], args[1], "DEV.APP.SVRCONN", args[3]);
        try {
            MQQueueManager qm = new MQQueueManager("QM1", props);
            MQQueue q = qm.accessQueue(args[2], CMQC.MQOO_OUTPUT);
            MQMessage message = new MQMessage();
            message.format = CMQC.MQFMT_STRING;
            message.write("over TLS from Java".getBytes(StandardCharsets.UTF_8));
            MQPutMessageOptions pmo = new MQPutMessageOptions();
            pmo.options = CMQC.MQPMO_NO_SYNCPOINT;
            q.put(message, pmo);
            q.close();
            qm.disconnect();
            System.out.println("CHECK tls_put OK");
        } catch (Exception e) {
            Throwable cause = e;
            StringBuilder why = new StringBuilder();
            while (cause != null) {
                why.append(cause).append(" <- ");
                cause = cause.getCause();
            }
            System.out.println("CHECK tls_put FAIL " + why);
        }
    }
}
