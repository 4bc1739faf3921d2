// IBM MQ JMS in migration mode (PROVIDERVERSION 6) against `mqk listen` + `mqk serve`: one
// JVM, one line per check ("CHECK <name> OK" or "CHECK <name> FAIL <why>").
// Arguments: host port queue pyToJavaQueue javaToPyQueue [pubsub]
// pubsub: topic scenarios with broker versions V1 and V2; a Python MQI program published
// "from-python-<v>" retained on mqk/jms/<v>/frompy before, and subscribes to mqk/jms/<v>/topy.

import com.ibm.mq.jms.MQConnectionFactory;
import com.ibm.msg.client.wmq.WMQConstants;
import javax.jms.Connection;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TextMessage;
import javax.jms.Topic;
import javax.jms.TopicSubscriber;
import javax.jms.BytesMessage;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class JmsCheck extends Checks {

    static String host;
    static int port;

    public static void main(String[] args) throws Exception {
        host = args[0];
        port = Integer.parseInt(args[1]);
        String queue = "queue:///" + args[2];
        check("queue_send_receive", () -> {
            try (Connection c = connect(WMQConstants.WMQ_BROKER_V1, null)) {
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                s.createProducer(s.createQueue(queue)).send(s.createTextMessage("jms-hello"));
                expect(s.createConsumer(s.createQueue(queue)).receive(10_000), "jms-hello");
            }
        });
        check("queue_transacted", () -> {
            try (Connection c = connect(WMQConstants.WMQ_BROKER_V1, null)) {
                Session s = c.createSession(true, Session.SESSION_TRANSACTED);
                MessageProducer p = s.createProducer(s.createQueue(queue));
                MessageConsumer r = s.createConsumer(s.createQueue(queue));
                p.send(s.createTextMessage("rolled-back"));
                s.rollback();
                if (r.receive(1_000) != null) throw new Exception("a rolled-back send arrived");
                p.send(s.createTextMessage("committed"));
                s.commit();
                expect(r.receive(10_000), "committed");
                s.rollback();  // the receive is undone: it comes again
                expect(r.receive(10_000), "committed");
                s.commit();
            }
        });
        check("request_reply_temporary_queue", () -> {
            try (Connection c = connect(WMQConstants.WMQ_BROKER_V1, null)) {
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                TemporaryQueue replies = s.createTemporaryQueue();
                TextMessage request = s.createTextMessage("ping");
                request.setJMSReplyTo(replies);
                s.createProducer(s.createQueue(queue)).send(request);
                Message got = s.createConsumer(s.createQueue(queue)).receive(10_000);
                expect(got, "ping");
                s.createProducer(got.getJMSReplyTo()).send(s.createTextMessage("pong"));
                MessageConsumer replyReader = s.createConsumer(replies);
                expect(replyReader.receive(10_000), "pong");
                replyReader.close();
                replies.delete();
            }
        });
        if (args.length > 4) {
            check("jms_python_exchange", () -> {
                try (Connection c = connect(WMQConstants.WMQ_BROKER_V1, null)) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    Destination in = s.createQueue("queue:///" + args[3] + "?targetClient=1");
                    Message got = s.createConsumer(in).receive(10_000);
                    if (got == null) throw new Exception("nothing from Python");
                    s.createProducer(s.createQueue("queue:///" + args[4] + "?targetClient=1"))
                        .send(s.createTextMessage("from-jms"));
                }
            });
        }
        if (args.length < 6 || !args[5].equals("pubsub")) return;
        for (int version : new int[] {WMQConstants.WMQ_BROKER_V1, WMQConstants.WMQ_BROKER_V2}) {
            String v = version == WMQConstants.WMQ_BROKER_V1 ? "v1" : "v2";
            check("pubsub_" + v, () -> {
                try (Connection c = connect(version, null)) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    Topic topic = s.createTopic("topic://mqk/jms/" + v + "/news");
                    MessageConsumer sub = s.createConsumer(topic);
                    s.createProducer(topic).send(s.createTextMessage("news-" + v));
                    expect(sub.receive(30_000), "news-" + v);
                    sub.close();
                }
            });
            check("two_subscribers_" + v, () -> {
                try (Connection c = connect(version, null)) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    Topic red = s.createTopic("topic://mqk/jms/" + v + "/red");
                    Topic blue = s.createTopic("topic://mqk/jms/" + v + "/blue");
                    MessageConsumer reds = s.createConsumer(red);
                    MessageConsumer blues = s.createConsumer(blue);
                    MessageProducer p = s.createProducer(null);
                    p.send(red, s.createTextMessage("red-1"));
                    p.send(blue, s.createTextMessage("blue-1"));
                    expect(reds.receive(30_000), "red-1");
                    expect(blues.receive(30_000), "blue-1");
                    if (reds.receive(2_000) != null) throw new Exception("red got more");
                    if (blues.receive(500) != null) throw new Exception("blue got more");
                    reds.close();
                    blues.close();
                }
            });
            check("wildcard_" + v, () -> {
                try (Connection c = connect(version, null)) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    String all = version == WMQConstants.WMQ_BROKER_V1 ? "*" : "#";
                    MessageConsumer sub = s.createConsumer(
                        s.createTopic("topic://mqk/jms/" + v + "/wild/" + all));
                    s.createProducer(s.createTopic("topic://mqk/jms/" + v + "/wild/a/b"))
                        .send(s.createTextMessage("deep"));
                    expect(sub.receive(30_000), "deep");
                    sub.close();
                }
            });
            check("listener_" + v, () -> {
                try (Connection c = connect(version, null)) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    Topic topic = s.createTopic("topic://mqk/jms/" + v + "/listened");
                    CountDownLatch heard = new CountDownLatch(1);
                    AtomicReference<String> text = new AtomicReference<>();
                    MessageConsumer sub = s.createConsumer(topic);
                    sub.setMessageListener(m -> {
                        try { text.set(textOf(m)); } catch (Exception e) { text.set(e.toString()); }
                        heard.countDown();
                    });
                    // a session that delivers to a listener is its thread's: publish on another
                    Session other = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    other.createProducer(topic).send(other.createTextMessage("heard-" + v));
                    if (!heard.await(30, TimeUnit.SECONDS)) throw new Exception("the listener heard nothing");
                    if (!("heard-" + v).equals(text.get())) throw new Exception("heard " + text.get());
                    sub.close();
                }
            });
            check("two_listeners_" + v, () -> {
                // IBM's client waits on a session's first listener's messages only and looks
                // for the others' between those waits (pollingInterval: 5 s by default)
                try (Connection c = connect(version, null, 200)) {
                    c.stop();  // a session delivering to listeners takes no other call
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
                    String topics = "topic://mqk/jms/" + v + "/heard/";
                    for (String colour : new String[] {"red", "blue"}) {
                        s.createConsumer(s.createTopic(topics + colour)).setMessageListener(m -> {
                            try { heard.add(colour + ":" + textOf(m)); } catch (Exception e) { heard.add(e.toString()); }
                        });
                    }
                    c.start();
                    Session other = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    MessageProducer p = other.createProducer(null);
                    p.send(other.createTopic(topics + "blue"), other.createTextMessage("b"));
                    p.send(other.createTopic(topics + "red"), other.createTextMessage("r"));
                    Set<String> got = new TreeSet<>();
                    while (got.size() < 2) {
                        String one = heard.poll(30, TimeUnit.SECONDS);
                        if (one == null) throw new Exception("the listeners heard only " + got);
                        got.add(one);
                    }
                    if (!got.equals(new TreeSet<>(Arrays.asList("blue:b", "red:r")))) throw new Exception("heard " + got);
                }
            });
            check("python_to_jms_" + v, () -> {
                try (Connection c = connect(version, null)) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    MessageConsumer sub = s.createConsumer(s.createTopic("topic://mqk/jms/" + v + "/frompy"));
                    Message got = sub.receive(30_000);
                    if (got == null) throw new Exception("no retained publication from Python");
                    if (!("from-python-" + v).equals(textOf(got))) throw new Exception("got " + textOf(got));
                    sub.close();
                }
            });
            check("jms_to_python_" + v, () -> {
                try (Connection c = connect(version, null)) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    s.createProducer(s.createTopic("topic://mqk/jms/" + v + "/topy"))
                        .send(s.createTextMessage("from-jms-" + v));
                }
            });
            check("durable_" + v, () -> {
                String name = "dur" + v;
                try (Connection c = connect(version, "mqk-client-" + v)) {
                    Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    Topic topic = s.createTopic("topic://mqk/jms/" + v + "/durable");
                    TopicSubscriber sub = s.createDurableSubscriber(topic, name);
                    sub.close();
                    s.createProducer(topic).send(s.createTextMessage("kept-" + v));
                    sub = s.createDurableSubscriber(topic, name);
                    expect(sub.receive(30_000), "kept-" + v);
                    sub.close();
                    s.unsubscribe(name);
                }
            });
        }
    }

    static Connection connect(int brokerVersion, String clientId) throws JMSException {
        return connect(brokerVersion, clientId, 5000);
    }

    static Connection connect(int brokerVersion, String clientId, int pollingMs) throws JMSException {
        MQConnectionFactory cf = new MQConnectionFactory();
        cf.setPollingInterval(pollingMs);
        cf.setTransportType(WMQConstants.WMQ_CM_CLIENT);
        cf.setHostName(host);
        cf.setPort(port);
        cf.setChannel("DEV.APP.SVRCONN");
        cf.setQueueManager("QM1");
        cf.setStringProperty(WMQConstants.WMQ_PROVIDER_VERSION, "6");
        cf.setIntProperty(WMQConstants.WMQ_BROKER_VERSION, brokerVersion);
        Connection c = cf.createConnection();
        if (clientId != null) c.setClientID(clientId);
        c.start();
        return c;
    }

    static String textOf(Message got) throws Exception {
        if (got instanceof TextMessage) return ((TextMessage) got).getText();
        if (got instanceof BytesMessage) {
            BytesMessage bytes = (BytesMessage) got;
            byte[] data = new byte[(int) bytes.getBodyLength()];
            bytes.readBytes(data);
            return new String(data, StandardCharsets.UTF_8);
        }
        return String.valueOf(got);
    }

    static void expect(Message got, String wanted) throws Exception {
        if (got == null) throw new Exception("nothing received, wanted " + wanted);
        String text = ((TextMessage) got).getText();
        if (!wanted.equals(text)) throw new Exception("got '" + text + "', wanted " + wanted);
    }
}
