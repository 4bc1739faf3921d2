// Idle JMS v6 (migration mode) connections through `mqk listen`: opens `count` connections,
// each started with one session (what an idle application holds), prints "READY <count>",
// then holds them until its standard input closes. Arguments: host port count

import com.ibm.mq.jms.MQConnectionFactory;
import com.ibm.msg.client.wmq.WMQConstants;
import java.util.ArrayList;
import java.util.List;
import javax.jms.Connection;
import javax.jms.Session;

public class JmsIdleBench {
    public static void main(String[] args) throws Exception {
        MQConnectionFactory cf = new MQConnectionFactory();
        cf.setTransportType(WMQConstants.WMQ_CM_CLIENT);
        cf.setHostName(args[0]);
        cf.setPort(Integer.parseInt(args[1]));
        cf.setChannel("DEV.APP.SVRCONN");
        cf.setQueueManager("QM1");
        cf.setStringProperty(WMQConstants.WMQ_PROVIDER_VERSION, "6");
        int count = Integer.parseInt(args[2]);
        List<Connection> held = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Connection c = cf.createConnection();
            c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            c.start();
            held.add(c);
        }
        System.out.println("READY " + held.size());
        System.out.flush();
        while (System.in.read() >= 0) { }
        for (Connection c : held) c.close();
    }
}
