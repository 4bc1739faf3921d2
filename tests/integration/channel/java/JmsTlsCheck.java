// IBM MQ JMS in migration mode (PROVIDERVERSION 6) over TLS to `mqk listen --tls-cert
// --tls-key --tls-ca` and `mqk serve`: the connection factory names a cipher suite
// (setSSLCipherSuite), the key and trust stores are the javax.net.ssl system properties.
// One line per check, as JmsCheck. Each check also reads the JMSXUserID (the MQMD's
// UserIdentifier) of what it received: the listener derives it from the client certificate.
// Arguments: host port queue cipher javaToPyQueue expectedUser

import com.ibm.mq.jms.MQConnectionFactory;
import com.ibm.msg.client.wmq.WMQConstants;
import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;

public class JmsTlsCheck extends Checks {

    static String[] a;

    public static void main(String[] args) {
        a = args;
        String queue = "queue:///" + args[2];
        check("tls_jms_queue", () -> {
            try (Connection c = connect(WMQConstants.WMQ_BROKER_V1)) {
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                s.createProducer(s.createQueue(queue)).send(s.createTextMessage("jms-over-tls"));
                expect(s.createConsumer(s.createQueue(queue)).receive(20_000), "jms-over-tls");
            }
        });
        check("tls_jms_to_python", () -> {
            try (Connection c = connect(WMQConstants.WMQ_BROKER_V1)) {
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                s.createProducer(s.createQueue("queue:///" + args[4] + "?targetClient=1"))
                    .send(s.createTextMessage("jms-tls-to-python"));
            }
        });
        for (int version : new int[] {WMQConstants.WMQ_BROKER_V1, WMQConstants.WMQ_BROKER_V2}) {
            String v = version == WMQConstants.WMQ_BROKER_V1 ? "v1" : "v2";
            check("tls_jms_pubsub_" + v, () -> {
                try (Connection c = connect(version)) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    Topic topic = s.createTopic("topic://mqk/tls/" + v);
                    MessageConsumer sub = s.createConsumer(topic);
                    s.createProducer(topic).send(s.createTextMessage("tls-news-" + v));
                    expect(sub.receive(30_000), "tls-news-" + v);
                    sub.close();
                }
            });
        }
    }

    static Connection connect(int brokerVersion) throws JMSException {
        MQConnectionFactory cf = new MQConnectionFactory();
        cf.setTransportType(WMQConstants.WMQ_CM_CLIENT);
        cf.setHostName(a[0]);
        cf.setPort(Integer.parseInt(a[1]));
        cf.setChannel("DEV.APP.SVRCONN");
        cf.setQueueManager("QM1");
        cf.setSSLCipherSuite(a[3]);
        cf.setStringProperty(WMQConstants.WMQ_PROVIDER_VERSION, "6");
        cf.setIntProperty(WMQConstants.WMQ_BROKER_VERSION, brokerVersion);
        Connection c = cf.createConnection();
        c.start();
        return c;
    }

    static void expect(Message got, String wanted) throws Exception {
        if (got == null) throw new Exception("nothing received, wanted " + wanted);
        String text = ((TextMessage) got).getText();
        if (!wanted.equals(text)) throw new Exception("got '" + text + "', wanted " + wanted);
        String user = got.getStringProperty("JMSXUserID");
        if (user == null || !a[5].equals(user.trim()))
            throw new Exception("JMSXUserID '" + user + "', wanted " + a[5]);
    }
}
