// The connection properties our MQ classes for Java checks connect to `mqk listen` with: a
// client channel (TCP) to host, port and a SVRCONN channel, and TLS with a cipher suite (the
// key and trust stores are the JVM's javax.net.ssl system properties).

import com.ibm.mq.constants.CMQC;
import java.util.Hashtable;

final class ClientProps {
    private ClientProps() {}

    static Hashtable<String, Object> of(String host, String port, String channel) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(CMQC.HOST_NAME_PROPERTY, host);
        props.put(CMQC.PORT_PROPERTY, Integer.parseInt(port));
        props.put(CMQC.CHANNEL_PROPERTY, channel);
        props.put(CMQC.TRANSPORT_PROPERTY, CMQC.TRANSPORT_MQSERIES_CLIENT);
        return props;
    }

    static Hashtable<String, Object> tls(String host, String port, String channel, String cipher) {
        Hashtable<String, Object> props = of(host, port, channel);
        props.put(CMQC.SSL_CIPHER_SUITE_PROPERTY, cipher);
        return props;
    }
}
