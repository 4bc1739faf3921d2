// Idle JMS v6 (migration mode) connections through `mqk listen`: opens connections up to each
// count of a comma-separated list in turn, each started with one session (what an idle
// application holds), printing "READY <count>" at each and waiting for a line on its standard
// input before the next; holds them all until its standard input closes.
// Arguments: host port counts (e.g. 50,100,200)

import com.ibm.mq.jms.MQConnectionFactory;
import com.ibm.msg.client.wmq.WMQConstants;
import java.io.BufferedReader;
import java.io.InputStreamReader;
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
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        List<Connection> held = new ArrayList<>();
        for (String step : args[2].split(",")) {
            int count = Integer.parseInt(step.trim());
            while (held.size() < count) {
                Connection c = cf.createConnection();
                c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                c.start();
                held.add(c);
            }
            System.out.println("READY " + held.size());
            System.out.flush();
            if (in.readLine() == null) break;
        }
        while (in.readLine() != null) { }
        for (Connection c : held) c.close();
    }
}
