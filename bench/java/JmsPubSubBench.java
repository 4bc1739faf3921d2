// JMS v6 (migration mode) publish-to-receive through `mqk listen` and `mqk serve`: a message
// listener on a topic, a producer on another session. Prints "RATE <msg/s>" and latencies
// "LAT <phase> p50 <ms> p99 <ms>" for a one-at-a-time phase and a flat-out phase, and for each
// publication of the one-at-a-time phase "ONE <sent> <received>" (wall clock, ms), which the
// Python side sets beside the Kafka records' times to time each hop.
// Arguments: host port brokerVersion(1|2) count size

import com.ibm.mq.jms.MQConnectionFactory;
import com.ibm.msg.client.wmq.WMQConstants;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.Topic;

public class JmsPubSubBench {
    public static void main(String[] args) throws Exception {
        MQConnectionFactory cf = new MQConnectionFactory();
        cf.setTransportType(WMQConstants.WMQ_CM_CLIENT);
        cf.setHostName(args[0]);
        cf.setPort(Integer.parseInt(args[1]));
        cf.setChannel("DEV.APP.SVRCONN");
        cf.setQueueManager("QM1");
        cf.setStringProperty(WMQConstants.WMQ_PROVIDER_VERSION, "6");
        cf.setIntProperty(WMQConstants.WMQ_BROKER_VERSION,
            args[2].equals("1") ? WMQConstants.WMQ_BROKER_V1 : WMQConstants.WMQ_BROKER_V2);
        int count = Integer.parseInt(args[3]);
        byte[] body = new byte[Integer.parseInt(args[4])];
        new java.util.Random(1).nextBytes(body); // a body that does not compress
        try (Connection c = cf.createConnection()) {
            Session subs = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Session pubs = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = subs.createTopic("topic://bench/jms/latency");
            BlockingQueue<Long> arrived = new ArrayBlockingQueue<>(count * 2 + 10);
            BlockingQueue<Long> wallArrived = new ArrayBlockingQueue<>(count * 2 + 10);
            MessageConsumer sub = subs.createConsumer(topic);
            sub.setMessageListener(m -> {
                long wall = System.currentTimeMillis();
                try {
                    arrived.add(System.nanoTime() - m.getLongProperty("sent"));
                    wallArrived.add(wall);
                }
                catch (Exception e) { arrived.add(-1L); }
            });
            c.start();
            MessageProducer producer = pubs.createProducer(topic);
            producer.setDeliveryMode(javax.jms.DeliveryMode.NON_PERSISTENT);
            // warm-up, then one at a time: each publication's own publish-to-receive time
            int single = Math.max(count / 10, 20);
            long[] one = new long[single];
            StringBuilder walls = new StringBuilder();
            for (int i = -10; i < single; i++) {
                BytesMessage m = pubs.createBytesMessage();
                m.writeBytes(body);
                m.setLongProperty("sent", System.nanoTime());
                long wallSent = System.currentTimeMillis();
                producer.send(m);
                Long took = arrived.poll(60, TimeUnit.SECONDS);
                if (took == null) throw new Exception("a publication did not arrive");
                if (i >= 0) one[i] = took;
                walls.append("ONE ").append(wallSent).append(' ')
                    .append(wallArrived.poll(60, TimeUnit.SECONDS)).append('\n');
            }
            System.out.print(walls);
            wallArrived.clear();
            report("one-at-a-time", one);
            // flat out: the rate from the first send to the last receive
            long[] flat = new long[count];
            long began = System.nanoTime();
            for (int i = 0; i < count; i++) {
                BytesMessage m = pubs.createBytesMessage();
                m.writeBytes(body);
                m.setLongProperty("sent", System.nanoTime());
                producer.send(m);
            }
            for (int i = 0; i < count; i++) {
                Long took = arrived.poll(120, TimeUnit.SECONDS);
                if (took == null) throw new Exception("only " + i + " of " + count + " arrived");
                flat[i] = took;
            }
            double seconds = (System.nanoTime() - began) / 1e9;
            System.out.printf("RATE %.1f%n", count / seconds);
            report("flat-out", flat);
            sub.close();
        }
    }

    static void report(String phase, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double p50 = sorted[sorted.length / 2] / 1e6;
        double p99 = sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1e6;
        System.out.printf("LAT %s p50 %.1f p99 %.1f%n", phase, p50, p99);
    }
}
